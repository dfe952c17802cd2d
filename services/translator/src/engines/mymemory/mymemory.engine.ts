import {
  EngineError,
  oneTextPerCall,
  parseRetryAfter,
  type EngineResult,
  type TranslationEngine,
} from '../engine.js';
import {
  endpoint,
  failureForStatus,
  isRecord,
  send,
  statusFailure,
  stringField,
  type HttpReply,
  headerOf,
} from '../http-errors.js';
import { coverageOf } from '../pair-coverage.js';
import { toMyMemoryCode } from './mymemory.languages.js';
import { MYMEMORY_MAX_CHARS, truncateForMyMemory } from './mymemory.truncate.js';

export interface MyMemoryOptions {
  /** Default `https://api.mymemory.translated.net`. */
  readonly baseUrl?: string;
  /** Contact address sent as `de`, which raises the free daily quota. */
  readonly email?: string;
}

/** MyMemory's in-band error texts (upper case, inside translatedText or responseDetails). */
const QUOTA_TEXT = /MYMEMORY WARNING|YOU USED ALL AVAILABLE FREE TRANSLATIONS/;
const LANGUAGE_TEXT =
  /IS AN INVALID (SOURCE|TARGET) LANGUAGE|INVALID LANGUAGE PAIR|SELECT TWO DISTINCT LANGUAGES/;
const OTHER_ERROR_TEXT = /QUERY LENGTH LIMIT EXCEEDED|NO QUERY SPECIFIED|INVALID EMAIL/;

/**
 * MyMemory `GET /get?q=...&langpair=src|tgt`, one text per request; input over its 500-byte limit is
 * cut and flagged.
 */
export function createMyMemoryEngine(options: MyMemoryOptions = {}): TranslationEngine {
  const url = endpoint(options.baseUrl ?? 'https://api.mymemory.translated.net', '/get');

  return {
    name: 'mymemory',
    maxChars: MYMEMORY_MAX_CHARS,
    // MyMemory publishes no language list and reads any ISO 639 / RFC 3066 code; it cannot detect.
    languagePairs: async () => MYMEMORY_PAIRS,
    // The API takes one text per request: no `batch`, so the chain sends one text per call.
    translate: oneTextPerCall(async ({ text, source, target }, signal): Promise<EngineResult> => {
      const sourceCode = toMyMemoryCode(source);
      const targetCode = toMyMemoryCode(target);
      if (!sourceCode || !targetCode) {
        throw new EngineError('mymemory', 'unsupported', `no MyMemory pair for ${source} -> ${target}`);
      }
      const input = truncateForMyMemory(text);
      const query = new URLSearchParams({ q: input.text, langpair: `${sourceCode}|${targetCode}` });
      if (options.email) query.set('de', options.email);
      const reply = await send('mymemory', `${url}?${query}`, { method: 'GET' }, signal);
      return { text: translatedText(reply, input.text), truncated: input.truncated };
    }),
  };
}

const MYMEMORY_PAIRS = coverageOf(
  (source, target) => toMyMemoryCode(source) !== undefined && toMyMemoryCode(target) !== undefined,
);

/** The translation in a MyMemory reply, or the failure hidden in it (errors mostly arrive with HTTP 200). */
function translatedText(reply: HttpReply, sent: string): string {
  const data = isRecord(reply.json) ? reply.json : {};
  const translated = stringField(data.responseData, 'translatedText');
  const details = typeof data.responseDetails === 'string' ? data.responseDetails : '';
  const inBand = `${translated ?? ''} ${details}`;
  const message = (translated || details || reply.text).trim().slice(0, 200);

  if (data.quotaFinished === true || QUOTA_TEXT.test(inBand)) {
    const retryAfterMs = parseNextAvailable(inBand) ?? parseRetryAfter(headerOf(reply, 'retry-after'));
    throw failure('quota', message, retryAfterMs);
  }
  if (LANGUAGE_TEXT.test(inBand)) throw failure('unsupported', message);
  if (OTHER_ERROR_TEXT.test(inBand)) throw failure('rejected', message);
  if (reply.status !== 200) throw statusFailure('mymemory', reply, message);
  // responseStatus is a number, or a string such as "403" on some errors.
  const status = Number(data.responseStatus);
  if (data.responseStatus === undefined || Number.isNaN(status)) {
    throw failure('rejected', 'unexpected response body');
  }
  if (status !== 200) throw failureForStatus('mymemory', status, message);
  if (translated === undefined || translated.trim() === '') throw failure('rejected', 'empty translation');
  if (translated.trim() === sent.trim()) throw failure('rejected', 'translation equals the input');
  return translated;
}

const failure = (kind: 'quota' | 'unsupported' | 'rejected', message: string, retryAfterMs?: number) =>
  new EngineError('mymemory', kind, message, retryAfterMs);

/** `NEXT AVAILABLE IN  23 HOURS 59 MINUTES 59 SECONDS` -> milliseconds. */
function parseNextAvailable(text: string): number | undefined {
  const match =
    /NEXT AVAILABLE IN\s{1,8}(?:(\d{1,6}) HOURS?)?\s{0,8}(?:(\d{1,6}) MINUTES?)?\s{0,8}(?:(\d{1,6}) SECONDS?)?/.exec(
      text,
    );
  if (!match || match.slice(1).every((part) => part === undefined)) return undefined;
  const [hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return (((hours ?? 0) * 60 + (minutes ?? 0)) * 60 + (seconds ?? 0)) * 1000;
}
