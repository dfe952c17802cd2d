import { z } from 'zod';

import { EngineError, type EngineResult, type TranslationEngine } from '../engine.js';
import { endpoint, postJson, send, statusFailure, stringField, type HttpReply } from '../http-errors.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';
import { fromLibreCode, libreCandidates } from './libretranslate.languages.js';

export interface LibreTranslateOptions {
  /** The self-hosted instance, e.g. `http://libretranslate:5000`. */
  readonly baseUrl: string;
  /** Sent as `api_key` in the body when the instance requires one. */
  readonly apiKey?: string;
  /** The instance's `--char-limit` (default 5000), which counts every text of a request together. */
  readonly maxChars?: number;
  /** Texts per request: the instance's `--batch-limit` when it sets one (default 50). */
  readonly maxTexts?: number;
}

const languagesReply = z.array(z.object({ code: z.string(), targets: z.array(z.string()).optional() }));

/** The answer to an array `q`: one translation, and with source `auto` one detection, per text. */
const translateReply = z.object({
  translatedText: z.array(z.string()),
  detectedLanguage: z.array(z.object({ language: z.string() })).optional(),
});

/** Source code -> the targets it can go to (undefined: the instance does not say, so any). */
type LanguageTable = ReadonlyMap<string, ReadonlySet<string> | undefined>;

/**
 * A LibreTranslate instance, `POST /translate` with `q` an array of texts; its `/languages` decides
 * codes and supported pairs.
 */
export function createLibreTranslateEngine(options: LibreTranslateOptions): TranslationEngine {
  const translateUrl = endpoint(options.baseUrl, '/translate');
  const languagesUrl = endpoint(options.baseUrl, '/languages');
  let table: LanguageTable | undefined;

  const readLanguages = async (signal: AbortSignal): Promise<LanguageTable> => {
    const reply = await send('libretranslate', languagesUrl, { method: 'GET' }, signal);
    if (reply.status !== 200) throw libreFailure(reply);
    const parsed = languagesReply.safeParse(reply.json);
    if (!parsed.success) throw new EngineError('libretranslate', 'rejected', 'unexpected /languages body');
    table = new Map(parsed.data.map((l) => [l.code, l.targets && new Set(l.targets)]));
    return table;
  };

  return {
    name: 'libretranslate',
    maxChars: options.maxChars ?? 5000,
    batch: { maxTexts: options.maxTexts ?? 50, maxChars: options.maxChars ?? 5000 },
    async languagePairs(signal): Promise<PairCoverage> {
      const known = await readLanguages(signal);
      return coverageOf(
        (source, target) => librePair(known, source, target) !== undefined,
        (target) => librePair(known, 'auto', target) !== undefined,
      );
    },
    async translate({ texts, source, target }, signal) {
      const known = table ?? (await readLanguages(signal));
      const auto = source.toLowerCase() === 'auto';
      const pair = librePair(known, source, target);
      if (!pair) {
        throw new EngineError(
          'libretranslate',
          'unsupported',
          `no LibreTranslate pair for ${source} -> ${target}`,
        );
      }
      const reply = await postTranslate(translateUrl, texts, pair, options.apiKey, signal);
      if (reply.status !== 200) {
        const failure = libreFailure(reply);
        // The instance's models changed since we read /languages: read it again next time.
        if (failure.kind === 'unsupported') table = undefined;
        throw failure;
      }

      return translatedResults(reply, auto);
    },
  };
}

/** POST /translate of plain texts in the instance's codes. */
function postTranslate(
  url: string,
  texts: readonly string[],
  pair: { source: string; target: string },
  apiKey: string | undefined,
  signal: AbortSignal,
): Promise<HttpReply> {
  const body = {
    q: texts,
    source: pair.source,
    target: pair.target,
    format: 'text',
    ...(apiKey ? { api_key: apiKey } : {}),
  };
  return postJson('libretranslate', url, body, signal);
}

/**
 * The translations of a 200 reply in the order of the texts, each with the language the instance
 * found when asked for `auto`.
 */
function translatedResults(reply: HttpReply, auto: boolean): EngineResult[] {
  const parsed = translateReply.safeParse(reply.json);
  if (!parsed.success) throw new EngineError('libretranslate', 'rejected', 'unexpected response body');
  const { translatedText, detectedLanguage } = parsed.data;
  return translatedText.map((text, index) => {
    const detected = detectedLanguage?.[index]?.language;
    return {
      text,
      truncated: false,
      ...(auto && detected ? { detectedSource: fromLibreCode(detected) } : {}),
    };
  });
}

/** The instance's codes for our pair, or undefined when its /languages does not offer it. */
function librePair(
  known: LanguageTable,
  source: string,
  target: string,
): { source: string; target: string } | undefined {
  const sourceCode =
    source.toLowerCase() === 'auto' ? 'auto' : libreCandidates(source).find((code) => known.has(code));
  const reachable = sourceCode && sourceCode !== 'auto' ? known.get(sourceCode) : undefined;
  const targetCode = libreCandidates(target).find(
    (code) => known.has(code) && (reachable?.has(code) ?? true),
  );
  return sourceCode && targetCode ? { source: sourceCode, target: targetCode } : undefined;
}

function libreFailure(reply: HttpReply): EngineError {
  const message = stringField(reply.json, 'error');
  if (
    reply.status === 400 &&
    message &&
    /(?<!format) is not supported|not available as a target/.test(message)
  ) {
    return new EngineError('libretranslate', 'unsupported', message);
  }
  // A flood ban (repeated 429s): retrying soon only extends it.
  if (reply.status === 403 && message && /too many request limits violations/i.test(message)) {
    return new EngineError('libretranslate', 'quota', message);
  }
  return statusFailure('libretranslate', reply, message);
}
