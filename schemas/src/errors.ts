/** Stable codes for everything that can go wrong turning events into bytes and back. */
export type SchemaErrorCode =
  | 'SCHEMA_FILE_INVALID'
  | 'SCHEMA_UNKNOWN_EVENT_TYPE'
  | 'SCHEMA_HEADER_MISSING'
  | 'SCHEMA_UNKNOWN_FINGERPRINT'
  | 'EVENT_INVALID'
  | 'MESSAGE_UNDECODABLE';

export class SchemaError extends Error {
  override readonly name = 'SchemaError';
  constructor(
    readonly code: SchemaErrorCode,
    message: string,
  ) {
    super(message);
  }
}
