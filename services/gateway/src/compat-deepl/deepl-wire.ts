import type { AppError, ErrorShape } from '@tp/runtime';
import type { Request } from 'express';
import { z } from 'zod';

import { fromDeepLCode } from '../compat/language-codes.js';
import type { WireFormat } from '../http/route.js';

/**
 * DeepL's statuses for our failures: a bad or missing key is 403 (DeepL has no 401), a spent budget
 * 456, a rate limit 429, a body too large 413; what DeepL has no status for is 400 (a client fault)
 * or 503 (ours: DeepL's client libraries retry a 503, as they would DeepL's own).
 */
export function deeplStatus(error: AppError): number {
  if (error.code === 'QUOTA_EXCEEDED') return 456;
  const status = error.httpStatus;
  if (status === 401) return 403;
  if ([400, 403, 404, 405, 413, 415, 429].includes(status)) return status;
  return status >= 500 ? 503 : 400;
}

/** What a refused key is told on /v2, where the key is sent DeepL's way (the usual messages name Bearer). */
const KEY_MESSAGES: Partial<Record<string, string>> = {
  API_KEY_MISSING:
    'this route needs an API key: `Authorization: DeepL-Auth-Key <key>` or the `auth_key` form field',
  API_KEY_MALFORMED: 'the Authorization header must be of the form `DeepL-Auth-Key <key>`',
};

/** `{message}` as DeepL answers, with our stable code beside it. */
export const deeplErrorBody = (error: AppError) => ({
  message: KEY_MESSAGES[error.code] ?? error.message,
  code: error.code,
});

export const deeplErrorSchema = z
  .object({
    message: z.string(),
    code: z.string().meta({ description: 'Our stable error name (docs/errors.md); DeepL sends none.' }),
  })
  .meta({ id: 'DeepLError', description: 'Failures of the DeepL-compatible /v2 routes.' });

/** Every failure under /v2/, unknown paths and refusals before a route included, in DeepL's shape. */
export const deeplErrorShape: ErrorShape = { prefix: '/v2/', body: deeplErrorBody, status: deeplStatus };

const DEEPL_AUTH = /^DeepL-Auth-Key {1,16}(\S{1,512}) {0,16}$/i;

/**
 * The key of a DeepL request: `Authorization: DeepL-Auth-Key <key>`, or the legacy `auth_key` form
 * field. (DeepL also took `auth_key` in the query string; not here, where URLs are logged.)
 */
export function deeplCredential(req: Request): string | undefined {
  const header = req.headers.authorization;
  const fromHeader = header === undefined ? undefined : DEEPL_AUTH.exec(header)?.[1];
  if (fromHeader !== undefined) return fromHeader;
  const body = req.body as { auth_key?: unknown } | undefined;
  return typeof body?.auth_key === 'string' && body.auth_key !== '' ? body.auth_key : undefined;
}

/** The wire format of every /v2 route: form or JSON bodies, DeepL's key, DeepL's failures. */
export const DEEPL_WIRE: WireFormat = {
  forms: true,
  credential: deeplCredential,
  security: 'deeplAuth',
  errors: { schema: deeplErrorSchema, status: deeplStatus },
};

/** The legacy key field every /v2 body may carry (read by deeplCredential, then ignored). */
export const authKeyField = {
  auth_key: z.string().max(600).optional().meta({
    description: 'Legacy: the API key in the body, where `Authorization: DeepL-Auth-Key` is not sent.',
  }),
};

/** A language field in DeepL's codes, read as ours; DeepL's message for one it does not know. */
export const deeplLanguage = (field: 'source' | 'target') =>
  z.string().transform((code, ctx) => {
    const ours = fromDeepLCode(field, code);
    if (ours) return ours;
    ctx.addIssue({ code: 'custom', message: `Value for '${field}_lang' not supported.` });
    return z.NEVER;
  });

export const DEEPL_TAGS = ['DeepL-compatible'];
