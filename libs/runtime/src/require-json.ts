import type { RequestHandler } from 'express';

import { AppError } from './errors.js';

/**
 * A body must be JSON (415 UNSUPPORTED_MEDIA_TYPE otherwise); a request without a body passes on and
 * fails validation if one is required. Put it before `express.json()`.
 */
export const requireJson: RequestHandler = (req, _res, next) => {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json')) {
    next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON with Content-Type: application/json'));
    return;
  }
  next();
};
