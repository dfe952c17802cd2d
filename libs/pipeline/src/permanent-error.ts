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
