import { z } from 'zod';

import { EngineError, type EngineResult, type TranslationEngine } from '../engine.js';
import { endpoint, send, statusFailure, stringField, type HttpReply } from '../http-errors.js';
import { coverageOf, type PairCoverage } from '../pair-coverage.js';
import { fromLibreCode, libreCandidates } from './libretranslate.languages.js';

export interface LibreTranslateOptions {
  /** The self-hosted instance, e.g. `http://libretranslate:5000`. */
  readonly baseUrl: string;
  /** Sent as `api_key` in the body when the instance requires one. */
  readonly apiKey?: string;
  /** The instance's `--char-limit` (default 5000). */
  readonly maxChars?: number;
}

const languagesReply = z.array(z.object({ code: z.string(), targets: z.array(z.string()).optional() }));

const translateReply = z.object({
  translatedText: z.string(),
  detectedLanguage: z.object({ language: z.string() }).optional(),
});

/** Source code -> the targets it can go to (undefined: the instance does not say, so any). */
type LanguageTable = ReadonlyMap<string, ReadonlySet<string> | undefined>;

/** A LibreTranslate instance, `POST /translate`; its `/languages` decides codes and supported pairs. */
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
    async languagePairs(signal): Promise<PairCoverage> {
      const known = await readLanguages(signal);
      return coverageOf(
        (source, target) => librePair(known, source, target) !== undefined,
        (target) => librePair(known, 'auto', target) !== undefined,
      );
    },
    async translate({ text, source, target }, signal): Promise<EngineResult> {
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
      const reply = await postTranslate(translateUrl, text, pair, options.apiKey, signal);
      if (reply.status !== 200) {
        const failure = libreFailure(reply);
        // The instance's models changed since we read /languages: read it again next time.
        if (failure.kind === 'unsupported') table = undefined;
        throw failure;
      }

      return translatedResult(reply, auto);
    },
  };
}

/** POST /translate of one plain text in the instance's codes. */
function postTranslate(
  url: string,
  text: string,
  pair: { source: string; target: string },
  apiKey: string | undefined,
  signal: AbortSignal,
): Promise<HttpReply> {
  const body = {
    q: text,
    source: pair.source,
    target: pair.target,
    format: 'text',
    ...(apiKey ? { api_key: apiKey } : {}),
  };
  return send(
    'libretranslate',
    url,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    signal,
  );
}

/** The translation of a 200 reply, with the language the instance found when asked for `auto`. */
function translatedResult(reply: HttpReply, auto: boolean): EngineResult {
  const parsed = translateReply.safeParse(reply.json);
  if (!parsed.success) throw new EngineError('libretranslate', 'rejected', 'unexpected response body');
  const detected = parsed.data.detectedLanguage?.language;
  return {
    text: parsed.data.translatedText,
    truncated: false,
    ...(auto && detected ? { detectedSource: fromLibreCode(detected) } : {}),
  };
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
