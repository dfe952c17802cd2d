import { z } from 'zod';

import { EngineError, type EngineResult, type TranslationEngine } from '../engine.js';
import { endpoint, send, statusFailure, stringField, type HttpReply } from '../http-errors.js';
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

  const languages = async (signal: AbortSignal): Promise<LanguageTable> => {
    if (table) return table;
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
    async translate({ text, source, target }, signal): Promise<EngineResult> {
      const known = await languages(signal);
      const auto = source.toLowerCase() === 'auto';
      const sourceCode = auto ? 'auto' : libreCandidates(source).find((code) => known.has(code));
      const reachable = sourceCode && sourceCode !== 'auto' ? known.get(sourceCode) : undefined;
      const targetCode = libreCandidates(target).find(
        (code) => known.has(code) && (reachable?.has(code) ?? true),
      );
      if (!sourceCode || !targetCode) {
        throw new EngineError(
          'libretranslate',
          'unsupported',
          `no LibreTranslate pair for ${source} -> ${target}`,
        );
      }
      const body = {
        q: text,
        source: sourceCode,
        target: targetCode,
        format: 'text',
        ...(options.apiKey ? { api_key: options.apiKey } : {}),
      };
      const reply = await send(
        'libretranslate',
        translateUrl,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        signal,
      );
      if (reply.status !== 200) {
        const failure = libreFailure(reply);
        // The instance's models changed since we read /languages: read it again next time.
        if (failure.kind === 'unsupported') table = undefined;
        throw failure;
      }

      const parsed = translateReply.safeParse(reply.json);
      if (!parsed.success) throw new EngineError('libretranslate', 'rejected', 'unexpected response body');
      const detected = parsed.data.detectedLanguage?.language;
      return {
        text: parsed.data.translatedText,
        truncated: false,
        ...(auto && detected ? { detectedSource: fromLibreCode(detected) } : {}),
      };
    },
  };
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
