/**
 * Google Cloud Translation v2 (Basic) double: `POST|GET /language/translate/v2` with the API key as Google
 * takes it, in the `key` query parameter or the `X-goog-api-key` header, parameters in
 * the JSON body or the query, `/language/translate/v2/languages` (`{data:{languages:[{language}]}}`, with
 * `name` when `target` is given), `{error:{code,message,errors:[{message,domain,reason}],status}}` errors,
 * a missing key (403), a wrong key (400), quota exhaustion (403 `dailyLimitExceeded` /
 * `userRateLimitExceeded`) and the default html format, which escapes the output (`'` -> `&#39;`).
 */
import {
  respondWith,
  startHttpDouble,
  type DoubleResponse,
  type HttpDouble,
  type RecordedRequest,
} from './http-double.js';
import { detectLanguage, lookupPhrase, type PhraseLanguage } from './phrasebook.js';

export interface GoogleDoubleOptions {
  /** The one key the double accepts (default `test-google-key`). */
  readonly apiKey?: string;
}

export type GoogleQuotaReason = 'dailyLimitExceeded' | 'userRateLimitExceeded';

export interface GoogleDouble extends HttpDouble {
  /** Every translation answers 403 with this reason until `restoreQuota`. */
  exhaustQuota(reason?: GoogleQuotaReason): void;
  restoreQuota(): void;
}

const LANGUAGES = new Set(
  'af ar bg bn ca cs cy da de el en es et fa fi fr ga he hi hr hu id is it iw ja jv jw ko lt lv ms mt nl no pl pt pt-PT ro ru sk sl sq sr sv sw ta th tl tr uk ur vi zh zh-CN zh-TW zu'.split(
    ' ',
  ),
);

const PHRASE_LANGUAGES: Readonly<Record<string, PhraseLanguage>> = {
  en: 'en', de: 'de', fr: 'fr', es: 'es', it: 'it', ja: 'ja', pt: 'pt-BR', 'pt-PT': 'pt', zh: 'zh-Hans',
  'zh-CN': 'zh-Hans', 'zh-TW': 'zh-Hant',
}; // prettier-ignore

const DETECTED: Readonly<Record<PhraseLanguage, string>> = {
  en: 'en', de: 'de', fr: 'fr', es: 'es', it: 'it', ja: 'ja', pt: 'pt', 'pt-BR': 'pt', 'zh-Hans': 'zh-CN',
  'zh-Hant': 'zh-TW',
}; // prettier-ignore

const QUOTA_MESSAGES: Readonly<Record<GoogleQuotaReason, string>> = {
  dailyLimitExceeded: 'Daily Limit Exceeded',
  userRateLimitExceeded: 'User Rate Limit Exceeded',
};

/** A Google error body. */
export function googleError(
  code: number,
  message: string,
  reason: string,
  status: string,
  domain = 'global',
) {
  return { error: { code, message, errors: [{ message, domain, reason }], status } };
}

const error = (
  code: number,
  message: string,
  reason: string,
  status: string,
  domain?: string,
): DoubleResponse => ({
  status: code,
  body: googleError(code, message, reason, status, domain),
});

/** Canned faults with Google's documented shapes. */
export const googleFaults = {
  quota: (reason: GoogleQuotaReason = 'dailyLimitExceeded') =>
    respondWith(403, googleError(403, QUOTA_MESSAGES[reason], reason, 'PERMISSION_DENIED', 'usageLimits')),
  rateLimited: (retryAfterSeconds?: number) =>
    respondWith(
      429,
      googleError(429, 'Rate Limit Exceeded', 'rateLimitExceeded', 'RESOURCE_EXHAUSTED', 'usageLimits'),
      retryAfterSeconds,
    ),
  backendError: () =>
    respondWith(500, googleError(500, 'Internal error encountered.', 'backendError', 'INTERNAL')),
  unavailable: (retryAfterSeconds?: number) =>
    respondWith(
      503,
      googleError(503, 'The service is currently unavailable.', 'backendError', 'UNAVAILABLE'),
      retryAfterSeconds,
    ),
};

const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** A parameter from the JSON body, falling back to the query string (Google accepts both). */
function param(request: RecordedRequest, name: string): unknown {
  const body = request.body as Record<string, unknown> | undefined;
  return body?.[name] ?? request.query[name];
}

const NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

/** The supported languages; with `target`, each with its name (in English here, whatever the target). */
function languages(target: unknown): DoubleResponse {
  if (target !== undefined && (typeof target !== 'string' || !LANGUAGES.has(target))) {
    return error(400, 'Invalid Value', 'invalid', 'INVALID_ARGUMENT');
  }
  const list = [...LANGUAGES]
    .filter((code) => code !== 'iw' && code !== 'jw')
    .sort()
    .map((language) => (target ? { language, name: NAMES.of(language) ?? language } : { language }));
  return { status: 200, body: { data: { languages: list } } };
}

export async function startGoogleDouble(options: GoogleDoubleOptions = {}): Promise<GoogleDouble> {
  const apiKey = options.apiKey ?? 'test-google-key';
  let quota: GoogleQuotaReason | undefined;

  const translate = (request: RecordedRequest): DoubleResponse => {
    const q = param(request, 'q');
    const target = param(request, 'target');
    const source = param(request, 'source');
    const format = param(request, 'format') ?? 'html';
    const texts = typeof q === 'string' ? [q] : q;
    if (!Array.isArray(texts) || texts.length === 0)
      return error(400, 'Required Text', 'required', 'INVALID_ARGUMENT');
    if (texts.length > 128) return error(400, 'Too many text segments', 'invalid', 'INVALID_ARGUMENT');
    if (typeof target !== 'string') return error(400, 'Required Target', 'required', 'INVALID_ARGUMENT');
    if (!LANGUAGES.has(target)) return error(400, 'Invalid Value', 'invalid', 'INVALID_ARGUMENT');
    if (source !== undefined && (typeof source !== 'string' || !LANGUAGES.has(source))) {
      return error(400, 'Invalid Value', 'invalid', 'INVALID_ARGUMENT');
    }
    if (format !== 'text' && format !== 'html')
      return error(400, 'Invalid Value', 'invalid', 'INVALID_ARGUMENT');
    const translations = texts.map((text) => {
      const raw = String(text);
      const from = typeof source === 'string' ? PHRASE_LANGUAGES[source] : undefined;
      const to = PHRASE_LANGUAGES[target];
      const translated = (to && lookupPhrase(raw, from, to)) ?? `[${target}] ${raw}`;
      return {
        translatedText: format === 'html' ? escapeHtml(translated) : translated,
        ...(source === undefined ? { detectedSourceLanguage: DETECTED[detectLanguage(raw)] } : {}),
      };
    });
    return { status: 200, body: { data: { translations } } };
  };

  const double = await startHttpDouble((request) => {
    const listing = request.path === '/language/translate/v2/languages';
    if (request.path !== '/language/translate/v2' && !listing) {
      return error(404, 'Not Found', 'notFound', 'NOT_FOUND');
    }
    const key = request.query.key ?? request.headers['x-goog-api-key'];
    if (!key) {
      return error(403, 'The request is missing a valid API key.', 'forbidden', 'PERMISSION_DENIED');
    }
    if (key !== apiKey) {
      return error(400, 'API key not valid. Please pass a valid API key.', 'badRequest', 'INVALID_ARGUMENT');
    }
    if (quota) return error(403, QUOTA_MESSAGES[quota], quota, 'PERMISSION_DENIED', 'usageLimits');
    return listing ? languages(param(request, 'target')) : translate(request);
  });

  return Object.assign(double, {
    exhaustQuota: (reason: GoogleQuotaReason = 'dailyLimitExceeded') => {
      quota = reason;
    },
    restoreQuota: () => {
      quota = undefined;
    },
  });
}
