import { contentText, entityId, entitySegment, FIELD_NAME_RULE, fieldName } from '@tp/pipeline';
import { AppError, requestLog } from '@tp/runtime';
import { z } from 'zod';

import { assertInScope } from '../../auth/module-scope.js';
import type { GatewayCommandBus } from '../../commands/command-bus.js';
import { defineRoute } from '../../http/route.js';
import { languageTagSchema, supportedLanguage } from '../language.js';
import { EditTranslationCommand } from './edit-translation.command.js';

/** Most fields one edit may carry (as many as one report). */
export const MAX_EDITED_FIELDS = 200;

function editBody(maxTextChars: number) {
  const text = contentText(maxTextChars);
  return z.strictObject({
    fields: z
      .record(fieldName, text)
      .refine((f) => Object.keys(f).length >= 1, { message: 'at least one field is needed' })
      .refine((f) => Object.keys(f).length <= MAX_EDITED_FIELDS, {
        message: `at most ${MAX_EDITED_FIELDS} fields per edit`,
      })
      .meta({
        description: `Field -> translated text, for 1 to ${MAX_EDITED_FIELDS} source fields of the entity, each text 1 to ${maxTextChars} characters (code points). ${FIELD_NAME_RULE}`,
        minProperties: 1,
        maxProperties: MAX_EDITED_FIELDS,
      }),
  });
}

/** PUT /api/v1/content/{module}/{type}/{id}/translations/{lang}: an editor's translations. */
export function editTranslationRoute(commands: GatewayCommandBus, maxTextChars: number) {
  return defineRoute({
    method: 'put',
    path: '/api/v1/content/{module}/{type}/{id}/translations/{lang}',
    summary: 'Store human translations of fields of one entity',
    description:
      "Any API key (a key scoped to modules: only its modules, else 403 MODULE_NOT_ALLOWED). Stores the texts as the translations into `lang` of the entity's current source fields, with origin `human` and the key that wrote them, replacing what was stored. A machine result never replaces a human translation of the same source version (not a retranslation, nor a late or replayed result). When the source field changes, the human translation is kept and still served, marked `stale` (GET ...?meta=true), and a machine translation of the new text is requested, which replaces it, unless `lang` is one of the configuration's `human_only` languages. 404 ENTITY_NOT_FOUND when nothing is stored for the entity under `module`; 400 VALIDATION_FAILED for a field the entity does not have or whose source language is `lang`.",
    tags: ['content'],
    access: 'client',
    request: {
      params: z.strictObject({
        module: entitySegment,
        type: entitySegment,
        id: entityId,
        lang: languageTagSchema,
      }),
      body: editBody(maxTextChars),
    },
    response: {
      status: 200,
      description: 'Stored: reads in `lang` now serve these texts.',
      schema: z.object({
        language: z.string().meta({ description: 'The language code the texts were stored under.' }),
        source_version: z.int().nonnegative().meta({
          description: 'The source version the translations were made for (the entity’s current one).',
        }),
        fields: z.array(z.string()).meta({ description: 'The fields stored.' }),
        origin: z.literal('human'),
      }),
    },
    errors: ['MODULE_NOT_ALLOWED', 'ENTITY_NOT_FOUND', 'UNSUPPORTED_LANGUAGE', 'DEPENDENCY_UNAVAILABLE'],
    handler: async ({ params, body, req, principal }) => {
      assertInScope(principal, params.module);
      const targetLang = supportedLanguage('lang', params.lang);
      const command = new EditTranslationCommand({
        module: params.module,
        entityType: params.type,
        entityId: params.id,
        targetLang,
        fields: new Map(Object.entries(body.fields)),
        keyId: principal?.keyId ?? null,
      });
      const edited = await commands.execute(command).catch((err: unknown) => {
        if (err instanceof AppError) throw err;
        requestLog(req).error({ err }, 'could not store human translations');
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot store the translations right now; retry later');
      });
      return {
        language: targetLang,
        source_version: edited.sourceVersion,
        fields: [...edited.fields],
        origin: 'human' as const,
      };
    },
  });
}
