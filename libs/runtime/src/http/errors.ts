import type { ErrorRequestHandler, Express } from 'express';

import { AppError, internalError, notFound, type ErrorCode } from '../errors.js';
import { requestLog } from './request-log.js';

/**
 * An answer shape other than the platform's envelope for the errors of the paths under one prefix
 * (the gateway's OpenAI-compatible `/v1/` answers as OpenAI does).
 */
export interface ErrorShape {
  /** Path prefix, e.g. `/v1/`; the first shape whose prefix starts the request path is used. */
  readonly prefix: string;
  readonly body: (error: AppError) => object;
  /** The status that API gives this failure (DeepL answers a bad key 403, a spent quota 456); ours otherwise. */
  readonly status?: (error: AppError) => number;
}

export interface FinishOptions {
  readonly errorShapes?: readonly ErrorShape[];
}

/**
 * Unknown routes -> 404; AppError -> its status and envelope; body-parser and URL decoding faults ->
 * their 4xx; anything else -> 500 without details. Routes under a prefix of `errorShapes` answer in
 * that shape instead of the envelope.
 */
export function finishHttpApp(app: Express, { errorShapes = [] }: FinishOptions = {}): Express {
  app.use((req, _res, next) => next(notFound(`no route for ${req.method} ${req.path}`)));
  const handler: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const error = toAppError(err);
    if (error.httpStatus >= 500) requestLog(req).error({ err }, 'request failed');
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    const status = shapeOf(req.path, errorShapes)?.status?.(error) ?? error.httpStatus;
    res.status(status).json(errorBody(error, req.path, req.id, errorShapes));
  };
  app.use(handler);
  return app;
}

/** The error body: `{code, error, message, details?, request_id}`, or the shape of the path's prefix. */
export function errorBody(
  error: AppError,
  path: string,
  requestId: string,
  shapes: readonly ErrorShape[] = [],
): object {
  const shape = shapeOf(path, shapes);
  if (shape) return shape.body(error);
  return {
    code: error.numeric,
    error: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
    request_id: requestId,
  };
}

const shapeOf = (path: string, shapes: readonly ErrorShape[]) =>
  shapes.find(({ prefix }) => path.startsWith(prefix));

const BODY_ERRORS: Record<string, ErrorCode> = {
  'entity.parse.failed': 'MALFORMED_JSON',
  'entity.too.large': 'PAYLOAD_TOO_LARGE',
  'charset.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
  'encoding.unsupported': 'UNSUPPORTED_MEDIA_TYPE',
};

const BODY_MESSAGES: Partial<Record<ErrorCode, string>> = {
  MALFORMED_JSON: 'request body is not valid JSON',
  PAYLOAD_TOO_LARGE: 'request body is too large',
  UNSUPPORTED_MEDIA_TYPE: 'request body charset or content encoding is not supported',
};

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; message?: string } | undefined;
  const bodyCode = e?.type === undefined ? undefined : BODY_ERRORS[e.type];
  if (bodyCode) return new AppError(bodyCode, BODY_MESSAGES[bodyCode] ?? bodyCode);
  // Other client faults raised by express or body-parser (aborted upload, undecodable URL...).
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('BAD_REQUEST', 'the request could not be read');
  }
  return internalError();
}
