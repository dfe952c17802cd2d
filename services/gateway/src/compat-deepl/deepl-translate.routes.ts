import { AppError, codePoints } from '@tp/runtime';
import { MAX_TRANSLATE_TEXTS, translationControls } from '@tp/service-contracts';
import { z } from 'zod';

import type { GlossaryWrites } from '../admin/translate/glossaries/glossaries.routes.js';
import { deepLSourceCode } from '../compat/language-codes.js';
import { translateAll } from '../compat/translate-all.js';
import { defineRoute } from '../http/route.js';
import { textOrTexts, TRANSLATE_ERRORS, type TranslateText } from '../translate/translate.routes.js';
import { checkGlossaryId } from './deepl-glossaries.routes.js';
import { DEEPL_TAGS, DEEPL_WIRE, authKeyField, deeplLanguage } from './deepl-wire.js';

/** A DeepL switch: a JSON boolean, or `0`/`1` as forms send it. */
const flag = z.union([z.boolean(), z.enum(['0', '1', 'true', 'false'])]).optional();
const isOn = (value: z.output<typeof flag>) => value === true || value === '1' || value === 'true';
/** A list DeepL takes comma-separated or repeated. */
const tagList = z.union([z.string().max(1000), z.array(z.string().max(100)).max(100)]).optional();

/**
 * What `tag_handling=xml` is told: read as HTML, XML loses its case and its self-closing tags
 * (`<ph/>` is reopened around what follows), so it is refused rather than answered altered.
 */
const XML_REFUSED =
  "Value for 'tag_handling' not supported: XML tag handling is not supported here; 'html' is.";

const translateBody = z.strictObject({
  text: textOrTexts(z.string().min(1, "Parameter 'text' is empty.")).meta({
    description: `One text, or up to ${MAX_TRANSLATE_TEXTS} (repeated in a form).`,
  }),
  source_lang: deeplLanguage('source')
    .optional()
    .meta({ description: 'DeepL’s code; detected when absent.' }),
  target_lang: deeplLanguage('target').meta({
    description: 'DeepL’s code (`EN-US`, `PT-BR`, `ZH-HANS`...).',
  }),
  glossary_id: z.uuid().optional().meta({
    description:
      'Must be the glossary of the pair (and needs `source_lang`), which applies anyway: the platform applies a pair’s glossary to every translation.',
  }),
  show_billed_characters: flag.meta({ description: 'Adds `billed_characters` to each translation.' }),
  tag_handling: z
    .enum(['html'], { error: (issue) => (issue.input === 'xml' ? XML_REFUSED : undefined) })
    .optional()
    .meta({
      description:
        'As `format: html` of POST /api/v1/translate. `xml` is refused (400): XML tag handling is not supported.',
    }),
  tag_handling_version: z.string().max(10).optional(),
  formality: translationControls.formality.meta({
    description:
      'Applied where DeepL translates into a target it lists with formality (`prefer_*` falls back to the default elsewhere); other engines ignore it.',
  }),
  context: translationControls.context.meta({
    description: 'Informs the translation (DeepL takes it); not translated, not counted.',
  }),
  split_sentences: z.enum(['0', '1', 'nonewlines']).optional(),
  preserve_formatting: flag,
  outline_detection: flag,
  model_type: z.string().max(50).optional(),
  ignore_tags: tagList,
  non_splitting_tags: tagList,
  splitting_tags: tagList,
  ...authKeyField,
});

const translationSchema = z.object({
  detected_source_language: z.string().meta({ description: 'DeepL’s source code of the text’s language.' }),
  text: z.string(),
  billed_characters: z.int().optional().meta({ description: 'Characters (code points) of the text sent.' }),
});

const DESCRIPTION = `DeepL-compatible, over the use case of POST /api/v1/translate (cache, engine chain, glossaries, limits, each key's characters and budget). Form or JSON body; \`text\` repeated or an array (at most ${MAX_TRANSLATE_TEXTS}). A text that fails fails the request, as at DeepL. \`tag_handling\` \`html\` translates text nodes and keeps the tags, as \`format: html\`; \`xml\` is refused (400: XML tag handling is not supported). \`formality\` and \`context\` as in POST /api/v1/translate (applied by the engines that take them). Accepted and not applied: \`split_sentences\`, \`preserve_formatting\`, \`outline_detection\`, \`model_type\`, \`ignore_tags\`, \`splitting_tags\`, \`non_splitting_tags\`, \`tag_handling_version\`. A spent budget is 456.`;

/** POST /v2/translate. */
export function deeplTranslateRoute(translate: TranslateText, glossaries: GlossaryWrites) {
  return defineRoute({
    method: 'post',
    path: '/v2/translate',
    summary: 'DeepL: translate text',
    description: DESCRIPTION,
    tags: DEEPL_TAGS,
    access: 'client',
    wire: DEEPL_WIRE,
    request: { body: translateBody },
    response: {
      status: 200,
      description: 'One translation per text, in order.',
      schema: z.object({ translations: z.array(translationSchema) }),
    },
    errors: [...TRANSLATE_ERRORS, 'NOT_FOUND'],
    handler: async (context) => {
      const { body } = context;
      const texts = typeof body.text === 'string' ? [body.text] : body.text;
      const source = body.source_lang ?? 'auto';
      if (body.glossary_id !== undefined) {
        if (source === 'auto')
          throw new AppError('BAD_REQUEST', "Use of a glossary requires the 'source_lang' parameter.");
        await checkGlossaryId(glossaries, body.glossary_id, { source, target: body.target_lang });
      }
      const format = body.tag_handling ?? 'text';
      const done = await translateAll(
        translate,
        { texts, source, target: body.target_lang, format, formality: body.formality, context: body.context },
        context,
      );
      const billed = isOn(body.show_billed_characters);
      return {
        translations: done.map((translation, index) => ({
          detected_source_language: deepLSourceCode(translation.source),
          text: translation.translatedText,
          ...(billed ? { billed_characters: codePoints(texts[index] ?? '') } : {}),
        })),
      };
    },
  });
}
