import { z } from 'zod';

import { EngineError, type EngineResult, type TranslationEngine } from '../engine.js';
import { endpoint, postJson, send, statusFailure, stringField, type HttpReply } from '../http-errors.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';
import { createDeepLGlossaries, glossaryParams, glossaryRefusal } from './deepl-glossaries.js';
import { fromDeepLCode, toDeepLSource, toDeepLTarget } from './deepl.languages.js';

export interface DeepLOptions {
  /** DeepL API key; keys ending in `:fx` belong to the Free API, whose host differs. */
  readonly authKey: string;
  /** Overrides the host chosen from the key (a proxy, or the test double). */
  readonly baseUrl?: string;
}

/** The API host for a key: Free keys (`...:fx`) go to api-free.deepl.com. */
export const deeplBaseUrl = (authKey: string): string =>
  authKey.endsWith(':fx') ? 'https://api-free.deepl.com' : 'https://api.deepl.com';

const translateReply = z.object({
  translations: z
    .array(z.object({ text: z.string(), detected_source_language: z.string().optional() }))
    .min(1),
});

const languagesReply = z.array(
  z.object({ language: z.string(), supports_formality: z.boolean().optional() }),
);

/**
 * DeepL takes up to 50 `text` values per request and at most 128 KiB of body: 20,000 characters stay
 * within it even when JSON escapes every one of them as `\uXXXX`.
 */
const BATCH = { maxTexts: 50, maxChars: 20_000 };

/**
 * DeepL API v2 `POST /v2/translate`, up to 50 texts per call; `GET /v2/languages` for the pairs; a
 * pair's glossary through DeepL's glossary API (deepl-glossaries.ts).
 */
export function createDeepLEngine(options: DeepLOptions): TranslationEngine {
  const base = options.baseUrl ?? deeplBaseUrl(options.authKey);
  const url = endpoint(base, '/v2/translate');
  const authorization = `DeepL-Auth-Key ${options.authKey}`;
  const glossaries = createDeepLGlossaries(base, authorization);

  /** The target codes whose entry says `supports_formality`, as last read. */
  let formalTargets = new Set<string>();

  /** The codes of `GET /v2/languages?type=source|target`, upper case. */
  const languages = async (type: 'source' | 'target', signal: AbortSignal): Promise<Set<string>> => {
    const listUrl = `${endpoint(base, '/v2/languages')}?type=${type}`;
    const reply = await send('deepl', listUrl, { method: 'GET', headers: { authorization } }, signal);
    if (reply.status !== 200) throw deeplFailure(reply);
    const parsed = languagesReply.safeParse(reply.json);
    if (!parsed.success) throw new EngineError('deepl', 'rejected', 'unexpected /v2/languages body');
    if (type === 'target') {
      const formal = parsed.data.filter((entry) => entry.supports_formality === true);
      formalTargets = new Set(formal.map(({ language }) => language.toUpperCase()));
    }
    return new Set(parsed.data.map(({ language }) => language.toUpperCase()));
  };

  return {
    name: 'deepl',
    maxChars: 5000,
    batch: BATCH,
    appliesGlossaries: true,
    // Formality where DeepL's target list says it is supported; context for every pair.
    controls: (target) => ({ formality: formalTargets.has(toDeepLTarget(target) ?? ''), context: true }),
    removeDeletedGlossaries: (glossaryIds) => glossaries.removeDeleted(glossaryIds),
    async languagePairs(signal): Promise<PairCoverage> {
      const [sources, targets] = await Promise.all([
        languages('source', signal),
        languages('target', signal),
      ]);
      const writes = (code: string) => targets.has(toDeepLTarget(code) ?? '');
      return coverageOf(
        (source, target) => sources.has(toDeepLSource(source) ?? '') && writes(target),
        writes,
      );
    },
    async translate({ texts, source, target, glossary, formality, context }, signal) {
      const auto = source.toLowerCase() === 'auto';
      const sourceLang = auto ? undefined : toDeepLSource(source);
      const targetLang = toDeepLTarget(target);
      if (!targetLang || (!auto && !sourceLang)) {
        throw new EngineError('deepl', 'unsupported', `no DeepL pair for ${source} -> ${target}`);
      }
      const body = {
        text: texts,
        target_lang: targetLang,
        ...(sourceLang ? { source_lang: sourceLang } : {}),
        ...(await glossaryParams(glossaries, glossary, sourceLang, targetLang, signal)),
        // `more`/`less` into a language without formality is DeepL's 400: only where it applies.
        ...(formality && formalTargets.has(targetLang) ? { formality } : {}),
        ...(context ? { context } : {}),
      };
      const reply = await postJson('deepl', url, body, signal, { authorization });
      const refused = glossary && glossaryRefusal(reply);
      if (glossary && refused) glossaries.forget(glossary.key);
      if (reply.status !== 200) throw refused ?? deeplFailure(reply);
      return translatedResults(reply);
    },
  };
}

/**
 * The translations of a 200 reply, in the order of the texts, each with the language DeepL found
 * (the chain refuses an answer of another length than the texts sent).
 */
function translatedResults(reply: HttpReply): EngineResult[] {
  const parsed = translateReply.safeParse(reply.json);
  if (!parsed.success) throw new EngineError('deepl', 'rejected', 'unexpected response body');
  return parsed.data.translations.map(({ text, detected_source_language }) => ({
    text,
    truncated: false,
    ...(detected_source_language ? { detectedSource: fromDeepLCode(detected_source_language) } : {}),
  }));
}

function deeplFailure(reply: HttpReply): EngineError {
  const message = stringField(reply.json, 'message');
  if (reply.status === 456) {
    return new EngineError('deepl', 'quota', message ?? 'quota for this billing period exceeded');
  }
  // not user text: DeepL's own error message
  if (reply.status === 400 && message && /(source|target)_lang.*not supported/i.test(message)) {
    return new EngineError('deepl', 'unsupported', message);
  }
  if (reply.status === 403 && !message) return statusFailure('deepl', reply, 'authorization failed');
  return statusFailure('deepl', reply, message);
}
