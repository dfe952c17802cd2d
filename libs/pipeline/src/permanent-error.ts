import { DriverException } from '@mikro-orm/core';

/**
 * A message that can never be handled as it is (it does not decode, names an unknown language, breaks
 * a rule of its schema...). Retrying cannot help, so the guard sends it to the dead letters at once
 * and the partition moves on. Anything else a handler throws counts as transient.
 */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  constructor(
    /** Stable code, kept with the dead letter (e.g. `UNSUPPORTED_LANGUAGE`). */
    readonly code: string,
    message: string,
    /** How many times the message was tried before giving up (1 when it failed at once). */
    readonly attempts = 1,
  ) {
    super(message);
  }
}

/**
 * A value the database refuses as data (SQLSTATE class 22: too long, invalid encoding...) fails the
 * same way on every retry, so it becomes a PermanentError with `code`; anything else (a lost
 * connection, a lock timeout...) is returned as it is, transient.
 */
export function dataErrorAsPermanent(err: unknown, code: string): unknown {
  if (err instanceof DriverException && typeof err.code === 'string' && err.code.startsWith('22')) {
    return new PermanentError(code, err.message);
  }
  return err;
}
