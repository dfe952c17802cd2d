import type { AppError, ErrorShape } from '@tp/runtime';
import type { Request } from 'express';
import { z } from 'zod';

import type { WireFormat } from '../http/route.js';

/**
 * LibreTranslate's statuses for our failures: 400 for a bad request (a text over the limit included,
 * as LibreTranslate answers its char limit), 403 for a bad key, 429 for a rate limit or a spent
 * budget ("slow down"). Server faults keep ours (503 when a service or every engine is down, where
 * LibreTranslate says 500): its clients treat every failure alike, and a 503 says to retry.
 */
export function libreStatus(error: AppError): number {
  const status = error.httpStatus;
  if (status === 401 || status === 403) return 403;
  if ([404, 405, 429].includes(status) || status >= 500) return status;
  return 400;
}

/** `{error}` as LibreTranslate answers, with our stable code beside it. */
export const libreErrorBody = (error: AppError) => ({ error: error.message, code: error.code });

export const libreErrorSchema = z
  .object({
    error: z.string(),
    code: z
      .string()
      .meta({ description: 'Our stable error name (docs/errors.md); LibreTranslate sends none.' }),
  })
  .meta({ id: 'LibreTranslateError', description: 'Failures of the LibreTranslate-compatible routes.' });

/** The paths of the LibreTranslate-compatible routes answer failures in its shape. */
export const libreErrorShapes: ErrorShape[] = ['/translate', '/detect', '/languages', '/frontend/'].map(
  (prefix) => ({ prefix, body: libreErrorBody, status: libreStatus }),
);

/**
 * The key of a LibreTranslate request: `api_key` in the body. The npm `libretranslate` client sends
 * it as `apiKey`, which is read too. An empty key is no key (its clients send `""`).
 */
export function libreCredential(req: Request): string | undefined {
  const body = req.body as { api_key?: unknown; apiKey?: unknown } | undefined;
  for (const key of [body?.api_key, body?.apiKey]) {
    if (typeof key === 'string' && key !== '') return key;
  }
  return undefined;
}

export const LIBRE_WIRE: WireFormat = {
  forms: true,
  // LibreTranslate's own front-end posts FormData.
  multipart: true,
  credential: libreCredential,
  errors: { schema: libreErrorSchema, status: libreStatus },
};

/** The key fields a LibreTranslate body may carry (read by libreCredential). */
export const apiKeyFields = {
  api_key: z.string().max(600).optional().meta({
    description:
      'An API key of the platform (optional: without one the anonymous limits apply; a key that is not valid is refused).',
  }),
  apiKey: z
    .string()
    .max(600)
    .optional()
    .meta({ description: 'Same as `api_key` (the npm `libretranslate` client).' }),
};

export const LIBRE_TAGS = ['LibreTranslate-compatible'];
