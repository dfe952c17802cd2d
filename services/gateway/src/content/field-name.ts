import { z } from 'zod';

/**
 * A field name of an entity, in a report and in an editor's translations: a field outside this set
 * can never be stored, so an edit naming one is refused the same way.
 */
export const fieldName = z
  .string()
  // The column length (CONTENT_COLUMN_CHARS.field) written out: a literal can be checked for linear time.
  .regex(/^[A-Za-z0-9_.-]{1,100}$/, {
    message: 'field names are 1-100 characters of A-Z, a-z, 0-9, _, . and -',
  })
  // JSON.parse keeps it as a key, but it would not survive as one in an object: parseRequest refuses
  // it before zod, which would leave it out without an issue (validate.ts); the document says so here.
  .meta({ not: { const: '__proto__' } });

/** What the document says of field names (the `fields` descriptions). */
export const FIELD_NAME_RULE = 'Field names are 1 to 100 of A-Z, a-z, 0-9, _, . and -, except __proto__.';
