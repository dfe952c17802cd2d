/**
 * Every error a client can see, with its stable numeric code and HTTP status. The numeric code is
 * HTTP status x 100 + a sequence, so it stays unique and readable. docs/errors.md lists this table
 * (a test keeps the two in step). Codes are never renumbered or reused.
 */
export const ERROR_CATALOGUE = {
  MALFORMED_JSON: { code: 40001, status: 400, summary: 'The body is not valid JSON.' },
  VALIDATION_FAILED: {
    code: 40002,
    status: 400,
    summary:
      'A body field, parameter or header is missing, has the wrong type, is unknown or is out of range; `details.issues` lists each problem.',
  },
  BAD_REQUEST: {
    code: 40003,
    status: 400,
    summary: 'The request could not be read (aborted upload, unknown encoding, malformed URL).',
  },
  UNSUPPORTED_LANGUAGE: {
    code: 40004,
    status: 400,
    summary: 'A language code is not in GET /api/v1/translate/languages.',
  },
  CONTENT_BLOCKED: {
    code: 40005,
    status: 400,
    summary:
      'The chat guardrail blocked a user message (moderation terms, or the NLI check found it unsafe); `details` says which message and why.',
  },
  UNSUPPORTED_LANGUAGE_PAIR: {
    code: 40006,
    status: 400,
    summary:
      'Both language codes are listed, but no installed engine translates between them, directly or through one intermediate language (none at all when no engine is configured). Retrying will not help: `details.remedies` (and the message) name what would make it work here, such as an engine and its setting or an offline model to pull; GET /api/v1/translate/pairs lists the pairs served now.',
  },
  ENTITY_TYPE_RESERVED: {
    code: 40007,
    status: 400,
    summary:
      'The entity type is reserved by the platform (`text` files the results of POST /api/v1/translate, `tracking` is the path of GET /api/v1/content/tracking/{tracking_id}); report content under another type.',
  },
  GLOSSARY_ENTRIES_INVALID: {
    code: 40008,
    status: 400,
    summary:
      'The glossary entries cannot be read (malformed CSV or TSV, an empty term, a term repeated, a tab, line break or control character in a term); `details.issues` names each line.',
  },
  MARKUP_TOO_COMPLEX: {
    code: 40009,
    status: 400,
    summary:
      'An `html` or `markdown` text has more elements or attributes, or deeper nesting, than one text may; `details.limit` names the limit and `details.max` its value.',
  },
  API_KEY_MISSING: {
    code: 40101,
    status: 401,
    summary: 'The route needs `Authorization: Bearer <key>` and none was sent.',
  },
  API_KEY_MALFORMED: {
    code: 40102,
    status: 401,
    summary: 'The Authorization header is not of the form `Bearer <key>`.',
  },
  API_KEY_INVALID: { code: 40103, status: 401, summary: 'No API key matches the one sent.' },
  API_KEY_REVOKED: { code: 40104, status: 401, summary: 'The API key was revoked.' },
  FORBIDDEN: {
    code: 40301,
    status: 403,
    summary: 'The API key is valid but its role may not use the route.',
  },
  MODULE_NOT_ALLOWED: {
    code: 40302,
    status: 403,
    summary:
      'The API key is scoped to modules and the module in the path is not one of them (`details.module`).',
  },
  NOT_FOUND: { code: 40401, status: 404, summary: 'No such route, or no such resource.' },
  MODEL_NOT_FOUND: {
    code: 40402,
    status: 404,
    summary: 'No configured chat provider serves this model or alias; `GET /v1/models` lists them.',
  },
  ENTITY_NOT_FOUND: {
    code: 40403,
    status: 404,
    summary: 'No source content is stored for this entity (module, type and id); report it first.',
  },
  DEAD_LETTER_NOT_FOUND: {
    code: 40404,
    status: 404,
    summary: 'No dead-letter entry has this id (it may have been replayed, purged or evicted).',
  },
  TRACKING_NOT_FOUND: {
    code: 40405,
    status: 404,
    summary:
      'No report with this tracking id was made with this API key (a report is tracked only for the key that made it).',
  },
  BACKFILL_NOT_FOUND: {
    code: 40406,
    status: 404,
    summary: 'No backfill has this id (GET /api/admin/translate/status lists the latest).',
  },
  METHOD_NOT_ALLOWED: {
    code: 40501,
    status: 405,
    summary:
      'The path exists but not for this method; the `Allow` header lists the methods, and the message and `details` say what each does there and where the method asked is taken.',
  },
  NLI_DISABLED: {
    code: 40901,
    status: 409,
    summary:
      'NLI moderation is switched off in its configuration (`enabled: false`); no verdict is given. Retrying will not help until an administrator enables it.',
  },
  CONFLICT: {
    code: 40902,
    status: 409,
    summary: 'The resource already exists (e.g. a moderation term that normalises like one already listed).',
  },
  MODULE_CONFLICT: {
    code: 40903,
    status: 409,
    summary: 'The entity type is already owned by another module; one type belongs to one module.',
  },
  LANGUAGE_NOT_CONFIGURED: {
    code: 40904,
    status: 409,
    summary:
      'The language is not one of the configured target languages (PUT /api/admin/translate/config); add it there, which starts its backfill.',
  },
  PAYLOAD_TOO_LARGE: { code: 41301, status: 413, summary: 'The body is larger than the configured limit.' },
  TEXT_TOO_LONG: {
    code: 41302,
    status: 413,
    summary: 'The text is longer than the hard maximum for one request (see the route).',
  },
  CONTENT_TOO_LARGE: {
    code: 41303,
    status: 413,
    summary:
      "The reported content could not travel through the pipeline: the change, or one field's translation messages, would be larger than the Kafka topic takes (counted in UTF-8 bytes); `details` names the field, the bytes and the limit.",
  },
  GLOSSARY_TOO_LARGE: {
    code: 41304,
    status: 413,
    summary:
      'The glossary has more entries, or more bytes of entries, than one glossary may hold, or a term is too long; `details` gives the limit.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 41501,
    status: 415,
    summary: 'The body is not `application/json`, or its charset/encoding is not supported.',
  },
  RATE_LIMITED: {
    code: 42901,
    status: 429,
    summary: 'Too many requests for this key or client address; retry after `Retry-After` seconds.',
  },
  UPSTREAM_RATE_LIMITED: {
    code: 42902,
    status: 429,
    summary:
      'Every chat provider for the model answered 429; `Retry-After` is the shortest wait they asked for.',
  },
  QUOTA_EXCEEDED: {
    code: 42903,
    status: 429,
    summary:
      'The API key has spent a budget an admin set (requests per day, chat tokens per day or per month, translated characters per month: also `details.limit`, `requested`, `remaining`); `details.budget` names it, `Retry-After` is the wait until it resets (UTC). OpenAI code `insufficient_quota` on `/v1` routes.',
  },
  INTERNAL: {
    code: 50001,
    status: 500,
    summary: 'An unexpected fault; the request id locates it in the logs.',
  },
  UPSTREAM_FAILED: {
    code: 50201,
    status: 502,
    summary:
      'Every chat provider for the model failed (connection, timeout, 5xx or rejected credentials); `details.attempts` says why.',
  },
  DEPENDENCY_UNAVAILABLE: {
    code: 50301,
    status: 503,
    summary: 'A store the request needs (e.g. Postgres for API keys) is unreachable; retry later.',
  },
  TRANSLATION_UNAVAILABLE: {
    code: 50302,
    status: 503,
    summary:
      'Every engine that could translate the pair failed (down, timed out, over quota, breaker open); retry later. `details.attempts` says why. A pair no installed engine serves is 400 UNSUPPORTED_LANGUAGE_PAIR instead.',
  },
  TRANSLATOR_UNAVAILABLE: {
    code: 50303,
    status: 503,
    summary: 'The translator service did not answer in time.',
  },
  NLI_MODEL_NOT_READY: {
    code: 50304,
    status: 503,
    summary:
      'The NLI model is not loaded (not installed, unreadable, or a test model not allowed); `GET /status` says why.',
  },
  NLI_UNAVAILABLE: {
    code: 50305,
    status: 503,
    summary: 'The NLI service did not answer in time.',
  },
  CHAT_UNAVAILABLE: {
    code: 50306,
    status: 503,
    summary: 'No chat provider is configured on this gateway (`CHAT_PROVIDERS`).',
  },
} as const satisfies Record<string, { code: number; status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * An expected failure with a stable code. Thrown where it happens, mapped to HTTP once, at the edge
 * (see http.ts).
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly numeric: number;
  readonly httpStatus: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Extra response headers, e.g. Retry-After or Allow. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.numeric = ERROR_CATALOGUE[code].code;
    this.httpStatus = ERROR_CATALOGUE[code].status;
  }
}

export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const malformedJson = (message: string) => new AppError('MALFORMED_JSON', message);
export const internalError = () => new AppError('INTERNAL', 'internal error');
