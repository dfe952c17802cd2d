/**
 * MyMemory double: `GET /get?q=...&langpair=src|tgt[&de=email]`. Like the real service it reports most
 * errors in-band with HTTP 200, as upper-case text in `translatedText` and a `responseStatus` that is
 * sometimes a string: queries over 500 bytes, invalid languages, an exhausted daily quota
 * (`quotaFinished: true`).
 */
import {
  createQuota,
  respondWith,
  startHttpDouble,
  type DoubleResponse,
  type HttpDouble,
  type RecordedRequest,
} from './http-double.js';
import { lookupPhrase, type PhraseLanguage } from './phrasebook.js';

export interface MyMemoryDoubleOptions {
  /** Bytes a day without `de` (default unlimited); `de=<email>` multiplies it by ten, as the service does. */
  readonly dailyBytes?: number;
}

export interface MyMemoryDouble extends HttpDouble {
  /** Every query answers the quota warning until `restoreQuota`. */
  exhaustQuota(): void;
  restoreQuota(): void;
}

export const QUOTA_WARNING =
  'MYMEMORY WARNING: YOU USED ALL AVAILABLE FREE TRANSLATIONS FOR TODAY. NEXT AVAILABLE IN  23 HOURS 59 MINUTES 59 SECONDS VISIT HTTPS://MYMEMORY.TRANSLATED.NET/DOC/USAGELIMITS.PHP TO TRANSLATE MORE';
export const QUERY_TOO_LONG = 'QUERY LENGTH LIMIT EXCEEDED. MAX ALLOWED QUERY : 500 CHARS';
const EXAMPLE =
  'EXAMPLE: LANGPAIR=EN|IT USING 2 LETTER ISO OR RFC3066 LIKE ZH-CN. ALMOST ALL LANGUAGES SUPPORTED BUT SOME MAY HAVE NO CONTENT';

const MAX_QUERY_BYTES = 500;

/** ISO 639-1 base codes the double knows; a region or script subtag is accepted on any of them. */
const LANGUAGES = new Set(
  'af ar bg bn ca cs cy da de el en es et fa fi fr ga he hi hr hu hy id is it ja ka ko lt lv mk ms mt nl no pl pt ro ru sk sl sq sr sv sw ta th tl tr uk ur vi zh'.split(
    ' ',
  ),
);
const CODE = /^([a-z]{2,3})(-[a-z0-9]{2,8})?$/i;

const PHRASE_LANGUAGES: Readonly<Record<string, PhraseLanguage>> = {
  en: 'en', de: 'de', fr: 'fr', es: 'es', it: 'it', ja: 'ja', pt: 'pt', 'pt-pt': 'pt', 'pt-br': 'pt-BR',
  zh: 'zh-Hans', 'zh-cn': 'zh-Hans', 'zh-tw': 'zh-Hant',
}; // prettier-ignore

export interface MyMemoryBody {
  readonly translatedText: string;
  readonly responseStatus?: number | string;
  readonly quotaFinished?: boolean | null;
  readonly responseDetails?: string;
  readonly q?: string;
  readonly langpair?: readonly [string, string];
}

/** A MyMemory reply body in the service's shape. */
export function mymemoryBody(reply: MyMemoryBody) {
  const status = reply.responseStatus ?? 200;
  const ok = Number(status) === 200;
  const [source, target] = reply.langpair ?? ['en', 'it'];
  return {
    responseData: { translatedText: reply.translatedText, match: ok ? 1 : null },
    quotaFinished: reply.quotaFinished ?? (ok ? false : null),
    mtLangSupported: null,
    responseDetails: reply.responseDetails ?? (ok ? '' : reply.translatedText),
    responseStatus: status,
    responderId: null,
    exception_code: null,
    matches: ok
      ? [
          {
            id: '0',
            segment: reply.q ?? '',
            translation: reply.translatedText,
            source,
            target,
            quality: '74',
            reference: null,
            'usage-count': 2,
            subject: '',
            'created-by': 'MT!',
            'last-updated-by': 'MT!',
            match: 1,
          },
        ]
      : '',
  };
}

const inBand = (
  translatedText: string,
  responseStatus: number | string,
  quotaFinished?: boolean,
): DoubleResponse => ({
  status: 200,
  body: mymemoryBody({
    translatedText,
    responseStatus,
    ...(quotaFinished === undefined ? {} : { quotaFinished }),
  }),
});

/** Canned faults with MyMemory's reported quirks. */
export const mymemoryFaults = {
  /** The reported blank translation with a 200 status. */
  emptyOutput: () => respondWith(200, mymemoryBody({ translatedText: '' })),
  /** The input echoed back as its own translation. */
  echo: () =>
    respondWith(200, (request: RecordedRequest) =>
      mymemoryBody({ translatedText: request.query.q ?? '', q: request.query.q ?? '' }),
    ),
  /** The quota warning with a real HTTP 429 (and no quotaFinished flag). */
  quotaOverHttp429: () =>
    respondWith(429, mymemoryBody({ translatedText: QUOTA_WARNING, responseStatus: 429 })),
  /** An HTTP 429 without MyMemory's body (a proxy's rate limit). */
  tooManyRequests: (retryAfterSeconds: number) => respondWith(429, 'Too Many Requests', retryAfterSeconds),
  /** An in-band failure status with an otherwise ordinary-looking text. */
  inBandStatus: (responseStatus: number | string, translatedText: string) =>
    respondWith(200, mymemoryBody({ translatedText, responseStatus })),
  serverError: (status = 503) => respondWith(status, '<html>Service Unavailable</html>'),
};

export async function startMyMemoryDouble(options: MyMemoryDoubleOptions = {}): Promise<MyMemoryDouble> {
  const dailyBytes = options.dailyBytes ?? Number.POSITIVE_INFINITY;
  const quota = createQuota();

  const translate = (request: RecordedRequest): DoubleResponse => {
    const q = request.query.q;
    const langpair = request.query.langpair;
    if (!q) return inBand('NO QUERY SPECIFIED. EXAMPLE REQUEST: GET?Q=HELLO&LANGPAIR=EN|IT', 403);
    const [source, target, extra] = (langpair ?? '').split('|');
    if (!source || !target || extra !== undefined) {
      return inBand(`INVALID LANGUAGE PAIR SPECIFIED. ${EXAMPLE}`, 403);
    }
    // The real service answers these with the status as a string.
    if (!isLanguage(source))
      return inBand(`'${source.toUpperCase()}' IS AN INVALID SOURCE LANGUAGE . ${EXAMPLE}`, '403');
    if (!isLanguage(target))
      return inBand(`'${target.toUpperCase()}' IS AN INVALID TARGET LANGUAGE . ${EXAMPLE}`, '403');
    if (source.toLowerCase() === target.toLowerCase())
      return inBand('PLEASE SELECT TWO DISTINCT LANGUAGES', 403);
    const bytes = Buffer.byteLength(q, 'utf8');
    if (bytes > MAX_QUERY_BYTES) return inBand(QUERY_TOO_LONG, 403);
    const budget = request.query.de ? dailyBytes * 10 : dailyBytes;
    if (!quota.spend(bytes, budget)) return inBand(QUOTA_WARNING, 429, true);
    const from = PHRASE_LANGUAGES[source.toLowerCase()];
    const to = PHRASE_LANGUAGES[target.toLowerCase()];
    const translated = (to && lookupPhrase(q, from, to)) ?? `[${target}] ${q}`;
    return { status: 200, body: mymemoryBody({ translatedText: translated, q, langpair: [source, target] }) };
  };

  const double = await startHttpDouble((request) =>
    request.path === '/get' && request.method === 'GET'
      ? translate(request)
      : { status: 404, body: 'Not Found' },
  );

  return Object.assign(double, { exhaustQuota: quota.exhaust, restoreQuota: quota.restore });
}

function isLanguage(code: string): boolean {
  const match = CODE.exec(code);
  return match !== null && LANGUAGES.has((match[1] ?? '').toLowerCase());
}
