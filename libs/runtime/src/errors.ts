/**
 * An expected failure with a stable code. Thrown where it happens, mapped to HTTP once, at the edge
 * (see http.ts). `numeric` is the stable integer sent as `code` in the error envelope.
 */
export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: string,
    readonly numeric: number,
    readonly httpStatus: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const notFound = (message: string) => new AppError('NOT_FOUND', 40401, 404, message);
export const malformedJson = (message: string) => new AppError('MALFORMED_JSON', 40001, 400, message);
export const internalError = () => new AppError('INTERNAL', 50001, 500, 'internal error');
