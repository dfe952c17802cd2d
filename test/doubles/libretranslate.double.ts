/**
 * LibreTranslate double, after libretranslate/app.py: `GET /languages`, `POST /translate` (JSON or form,
 * `q` a string or an array), `POST /detect`, `{"error"}` bodies, 400 for a missing parameter, an
 * unsupported language, text over the char limit or a missing required key, 403 for an unknown key or a
 * flood ban, 429 `Slowdown: N per 1 minute`. `detectedLanguage` only when the source is `auto`.
 */
import {
  field,
  respondWith,
  startHttpDouble,
  type DoubleResponse,
  type HttpDouble,
  type RecordedRequest,
} from './http-double.js';
import { detectLanguage, lookupPhrase, type PhraseLanguage } from './phrasebook.js';

export interface LibreTranslateDoubleOptions {
  /** Keys the instance knows; another key answers 403 `Invalid API key`. */
  readonly apiKeys?: readonly string[];
  /** A request without a key answers 400 (the instance runs with --require-api-key-*). */
  readonly requireApiKey?: boolean;
  /** `--char-limit`; beyond it 400 (default none). */
  readonly charLimit?: number;
  /** `--req-limit` per minute for /translate and /detect; beyond it 429 (default none). */
  readonly requestsPerMinute?: number;
  /** `current` Argos codes (`zh-Hans`, `zh-Hant`) or `legacy` ones (`zh`, `zt`). Default current. */
  readonly codes?: 'current' | 'legacy';
}

export interface LibreTranslateDouble extends HttpDouble {
  /** Flood ban: every guarded route answers 403 until `unban`. */
  ban(): void;
  unban(): void;
}

const NAMES: Readonly<Record<string, string>> = {
  en: 'English', de: 'German', fr: 'French', es: 'Spanish', it: 'Italian', ja: 'Japanese',
  pt: 'Portuguese', pb: 'Portuguese (Brazil)', 'zh-Hans': 'Chinese', 'zh-Hant': 'Chinese (traditional)',
  zh: 'Chinese', zt: 'Chinese (traditional)',
}; // prettier-ignore

const PHRASE_LANGUAGES: Readonly<Record<string, PhraseLanguage>> = {
  en: 'en', de: 'de', fr: 'fr', es: 'es', it: 'it', ja: 'ja', pt: 'pt', pb: 'pt-BR', 'zh-Hans': 'zh-Hans',
  zh: 'zh-Hans', 'zh-Hant': 'zh-Hant', zt: 'zh-Hant',
}; // prettier-ignore

const error = (status: number, message: string): DoubleResponse => ({ status, body: { error: message } });

/** Canned faults with LibreTranslate's shapes. */
export const libreTranslateFaults = {
  slowDown: (perMinute: number, retryAfterSeconds?: number) =>
    respondWith(429, { error: `Slowdown: ${perMinute} per 1 minute` }, retryAfterSeconds),
  cannotTranslate: () => respondWith(500, { error: 'Cannot translate text: model failed to load' }),
};

/** The language codes an instance offers, which targets each reaches, and our languages' codes in it. */
interface InstanceLanguages {
  readonly codes: readonly string[];
  readonly targetsOf: (code: string) => string[];
  readonly toCode: (language: PhraseLanguage) => string;
}

function instanceLanguages(legacy: boolean): InstanceLanguages {
  const [simplified, traditional] = legacy ? ['zh', 'zt'] : ['zh-Hans', 'zh-Hant'];
  const codes = ['en', 'de', 'fr', 'es', 'it', 'ja', 'pt', 'pb', simplified, traditional];
  // Japanese has only the English model installed, so it is a source with a single target.
  const targetsOf = (code: string): string[] =>
    code === 'ja' ? ['en'] : codes.filter((other) => other !== code && (code === 'en' || other !== 'ja'));
  const aliases: Readonly<Record<string, string>> = {
    'pt-BR': 'pb',
    'zh-Hans': simplified,
    'zh-Hant': traditional,
  };
  const toCode = (language: PhraseLanguage): string => aliases[language] ?? language;
  return { codes, targetsOf, toCode };
}

export async function startLibreTranslateDouble(
  options: LibreTranslateDoubleOptions = {},
): Promise<LibreTranslateDouble> {
  const languages = instanceLanguages(options.codes === 'legacy');
  const { codes, targetsOf, toCode } = languages;
  const keys = new Set(options.apiKeys ?? []);
  let banned = false;
  let window = { minute: -1, count: 0 };

  const overLimit = (): boolean => {
    if (options.requestsPerMinute === undefined) return false;
    const minute = Math.floor(Date.now() / 60_000);
    if (window.minute !== minute) window = { minute, count: 0 };
    window.count += 1;
    return window.count > options.requestsPerMinute;
  };

  const accessDenied = (request: RecordedRequest): DoubleResponse | undefined => {
    if (banned) return error(403, 'Too many request limits violations');
    const key = field(request.body, 'api_key');
    if (typeof key === 'string' && key !== '' && !keys.has(key)) return error(403, 'Invalid API key');
    if (options.requireApiKey && !key)
      return error(400, 'Please contact the server operator to get an API key');
    return undefined;
  };

  const translate = (request: RecordedRequest): DoubleResponse =>
    translateReply(request, languages, options.charLimit);

  const double = await startHttpDouble((request) => {
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /languages') {
      return {
        status: 200,
        body: codes.map((code) => ({ code, name: NAMES[code], targets: targetsOf(code) })),
      };
    }
    if (route !== 'POST /translate' && route !== 'POST /detect') return { status: 404, body: 'Not Found' };
    if (overLimit()) return error(429, `Slowdown: ${options.requestsPerMinute} per 1 minute`);
    const denied = accessDenied(request);
    if (denied) return denied;
    if (route === 'POST /translate') return translate(request);
    const q = field(request.body, 'q');
    if (!q) return error(400, 'Invalid request: missing q parameter');
    return { status: 200, body: [{ confidence: 90.0, language: toCode(detectLanguage(String(q))) }] };
  });

  return Object.assign(double, {
    ban: () => {
      banned = true;
    },
    unban: () => {
      banned = false;
    },
  });
}

/** POST /translate: LibreTranslate's checks in its order, then the phrase book (or a tagged copy). */
function translateReply(
  request: RecordedRequest,
  { codes, targetsOf, toCode }: InstanceLanguages,
  charLimit: number | undefined,
): DoubleResponse {
  const q = field(request.body, 'q');
  const source = field(request.body, 'source');
  const target = field(request.body, 'target');
  const format = field(request.body, 'format') ?? 'text';
  if (!q || (Array.isArray(q) && q.length === 0)) return error(400, 'Invalid request: missing q parameter');
  if (!source) return error(400, 'Invalid request: missing source parameter');
  if (!target) return error(400, 'Invalid request: missing target parameter');
  const texts = (Array.isArray(q) ? q : [q]).map(String);
  const chars = texts.reduce((sum, t) => sum + t.length, 0);
  if (charLimit !== undefined && chars > charLimit) {
    return error(400, `Invalid request: request (${chars}) exceeds text limit (${charLimit})`);
  }
  const detections = texts.map((text) =>
    source === 'auto'
      ? { confidence: 90.0, language: toCode(detectLanguage(text)) }
      : { confidence: 100.0, language: String(source) },
  );
  const unknown = detections.find((d) => !codes.includes(d.language));
  // LibreTranslate formats the whole detection dict into this message.
  if (unknown)
    return error(
      400,
      `{'confidence': ${unknown.confidence.toFixed(1)}, 'language': '${unknown.language}'} is not supported`,
    );
  if (typeof target !== 'string' || !codes.includes(target))
    return error(400, `${String(target)} is not supported`);
  if (format !== 'text' && format !== 'html') return error(400, `${String(format)} format is not supported`);
  const translations: string[] = [];
  for (const [index, text] of texts.entries()) {
    const from = detections[index]?.language ?? 'en';
    if (!targetsOf(from).includes(target)) {
      return error(
        400,
        `${NAMES[target]} (${target}) is not available as a target language from ${NAMES[from]} (${from})`,
      );
    }
    const to = PHRASE_LANGUAGES[target];
    translations.push((to && lookupPhrase(text, PHRASE_LANGUAGES[from], to)) ?? `[${target}] ${text}`);
  }
  const translatedText = Array.isArray(q) ? translations : translations[0];
  const detectedLanguage = Array.isArray(q) ? detections : detections[0];
  return {
    status: 200,
    body: source === 'auto' ? { translatedText, detectedLanguage } : { translatedText },
  };
}
