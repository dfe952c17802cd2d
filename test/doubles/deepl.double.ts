/**
 * DeepL API v2 double (after DeepLcom/deepl-mock): `POST /v2/translate`, `GET /v2/usage` and
 * `GET /v2/languages?type=source|target` (`[{language, name}]`, targets with `supports_formality`), the
 * `DeepL-Auth-Key` header (403 with an empty body otherwise), the 128 KiB body and 50 texts limits (413),
 * `{"message"}` error bodies, unsupported language codes (400) and a character quota (456); glossaries
 * (`/v2/glossaries`, `glossary_id` on translate, its entries applied) in deepl-glossaries.double.ts.
 */
import {
  createQuota,
  field,
  respondWith,
  startHttpDouble,
  type DoubleResponse,
  type HttpDouble,
  type RecordedRequest,
} from './http-double.js';
import { applyGlossary, DeepLGlossaryStore, type DoubleGlossary } from './deepl-glossaries.double.js';
import { detectLanguage, lookupPhrase, type PhraseLanguage } from './phrasebook.js';

export interface DeepLDoubleOptions {
  /** The one key the double accepts (default `test-key:fx`). */
  readonly authKey?: string;
  /** Characters per billing period; beyond it every translation answers 456 (default unlimited). */
  readonly characterLimit?: number;
}

export interface DeepLDouble extends HttpDouble {
  /** Uses up the quota: translations answer 456 until `resetQuota`. */
  exhaustQuota(): void;
  resetQuota(): void;
  /** Characters translated so far in this billing period. */
  characterCount(): number;
  /** The glossaries created at the double and not deleted, oldest first. */
  glossaries(): DoubleGlossary[];
}

const MAX_BODY_BYTES = 128 * 1024;
/** `text` values per request. */
const MAX_TEXTS = 50;

const SOURCES = new Set(
  'AR BG CS DA DE EL EN ES ET FI FR HE HU ID IT JA KO LT LV NB NL PL PT RO RU SK SL SV TH TR UK VI ZH'.split(
    ' ',
  ),
);
const TARGETS = new Set([
  ...[...SOURCES].filter((code) => code !== 'PT'),
  'EN-GB', 'EN-US', 'ES-419', 'PT-BR', 'PT-PT', 'ZH-HANS', 'ZH-HANT',
]); // prettier-ignore

const PHRASE_LANGUAGES: Readonly<Record<string, PhraseLanguage>> = {
  EN: 'en', 'EN-US': 'en', 'EN-GB': 'en', DE: 'de', FR: 'fr', ES: 'es', IT: 'it', JA: 'ja', PT: 'pt',
  'PT-PT': 'pt', 'PT-BR': 'pt-BR', ZH: 'zh-Hans', 'ZH-HANS': 'zh-Hans', 'ZH-HANT': 'zh-Hant',
}; // prettier-ignore

const DETECTED: Readonly<Record<PhraseLanguage, string>> = {
  en: 'EN', de: 'DE', fr: 'FR', es: 'ES', it: 'IT', ja: 'JA', pt: 'PT', 'pt-BR': 'PT', 'zh-Hans': 'ZH',
  'zh-Hant': 'ZH',
}; // prettier-ignore

const message = (status: number, text: string): DoubleResponse => ({ status, body: { message: text } });

/** Canned faults with DeepL's documented status codes and bodies. */
export const deeplFaults = {
  tooManyRequests: (retryAfterSeconds?: number) =>
    respondWith(429, { message: 'Too many requests' }, retryAfterSeconds),
  quotaExceeded: () => respondWith(456, { message: 'Quota for this billing period has been exceeded.' }),
  notFound: () => respondWith(404, { message: 'Not found' }),
  internalError: () => respondWith(500, { message: 'Internal server error' }),
  unavailable: () => respondWith(504, { message: 'Service unavailable' }),
  overloaded: (retryAfterSeconds?: number) =>
    respondWith(529, { message: 'Too many requests' }, retryAfterSeconds),
};

/** Targets with formality (DeepL's `supports_formality`); `more`/`less` elsewhere is a 400. */
const FORMAL_TARGETS = new Set(['DE', 'FR', 'IT', 'ES', 'NL', 'PL', 'PT-PT', 'PT-BR', 'RU', 'JA']);
const FORMALITIES = new Set(['default', 'more', 'less', 'prefer_more', 'prefer_less']);

/**
 * DeepL's 400 for a source it does not know, a formality it does not know, or `more`/`less` into a
 * target without formality.
 */
function optionRefusal(
  source: string | undefined,
  formality: unknown,
  target: string,
): DoubleResponse | undefined {
  if (source !== undefined && !SOURCES.has(source))
    return message(400, "Value for 'source_lang' not supported.");
  if (formality === undefined) return undefined;
  if (!FORMALITIES.has(String(formality))) return message(400, "Value for 'formality' not supported.");
  if ((formality === 'more' || formality === 'less') && !FORMAL_TARGETS.has(target)) {
    return message(400, "'formality' is not supported for given 'target_lang'.");
  }
  return undefined;
}

export async function startDeepLDouble(options: DeepLDoubleOptions = {}): Promise<DeepLDouble> {
  const authKey = options.authKey ?? 'test-key:fx';
  const characterLimit = options.characterLimit ?? Number.POSITIVE_INFINITY;
  const quota = createQuota();
  const glossaries = new DeepLGlossaryStore();

  const translate = (request: RecordedRequest): DoubleResponse => {
    const texts = field(request.body, 'text');
    const targetLang = field(request.body, 'target_lang');
    const sourceLang = field(request.body, 'source_lang');
    if (texts === undefined) return message(400, "Parameter 'text' not specified.");
    const list = typeof texts === 'string' && isForm(request) ? [texts] : texts;
    if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) {
      return message(400, "Value for 'text' not supported.");
    }
    if (list.length > MAX_TEXTS) return message(413, 'Request Entity Too Large');
    if (typeof targetLang !== 'string') return message(400, "Parameter 'target_lang' not specified.");
    const target = targetLang.toUpperCase();
    if (!TARGETS.has(target)) return message(400, "Value for 'target_lang' not supported.");
    const source = typeof sourceLang === 'string' ? sourceLang.toUpperCase() : undefined;
    const refused = optionRefusal(source, field(request.body, 'formality'), target);
    if (refused) return refused;
    const glossary = glossaries.forTranslate(field(request.body, 'glossary_id'), source, target);
    if (glossary && 'status' in glossary) return glossary;
    const characters = list.reduce((sum: number, t: string) => sum + [...t].length, 0);
    if (!quota.spend(characters, characterLimit)) {
      return message(456, 'Quota for this billing period has been exceeded.');
    }
    const translations = list.map((input: string) => {
      const text = glossary ? applyGlossary(input, glossary) : input;
      const from = source ? PHRASE_LANGUAGES[source] : undefined;
      const to = PHRASE_LANGUAGES[target];
      const translated = (to && lookupPhrase(text, from, to)) ?? `[${target}] ${text}`;
      return { detected_source_language: source ?? DETECTED[detectLanguage(text)], text: translated };
    });
    return { status: 200, body: { translations } };
  };

  const double = await startHttpDouble((request) => {
    if (request.bodyBytes > MAX_BODY_BYTES) return message(413, 'Request Entity Too Large');
    if (request.headers.authorization !== `DeepL-Auth-Key ${authKey}`) return { status: 403 };
    if (request.path === '/v2/translate' && request.method === 'POST') return translate(request);
    const glossaryAnswer = glossaries.handle(request);
    if (glossaryAnswer) return glossaryAnswer;
    if (request.path === '/v2/languages') return languages(request.query.type ?? field(request.body, 'type'));
    if (request.path === '/v2/usage') {
      const limit = Number.isFinite(characterLimit) ? characterLimit : 500_000;
      return {
        status: 200,
        body: { character_count: quota.isExhausted() ? limit : quota.used(), character_limit: limit },
      };
    }
    return message(404, 'Not found');
  });

  return Object.assign(double, {
    exhaustQuota: quota.exhaust,
    resetQuota: quota.restore,
    characterCount: quota.used,
    glossaries: () => glossaries.list(),
  });
}

const NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

/** DeepL's language list: sources by default; 400 for another `type`. */
function languages(type: unknown): DoubleResponse {
  if (type !== undefined && type !== 'source' && type !== 'target') {
    return message(400, "Value for 'type' not supported.");
  }
  const codes = type === 'target' ? [...TARGETS] : [...SOURCES];
  const body = codes.sort().map((language) => ({
    language,
    name: NAMES.of(language) ?? language,
    ...(type === 'target'
      ? {
          supports_formality: FORMAL_TARGETS.has(language),
        }
      : {}),
  }));
  return { status: 200, body };
}

const isForm = (request: RecordedRequest): boolean =>
  request.headers['content-type']?.includes('application/x-www-form-urlencoded') ?? false;
