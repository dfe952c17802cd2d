import { CONTENT_COLUMN_CHARS } from '@tp/pipeline';
import { z } from 'zod';

/** Control characters (U+0000 among them, which Postgres refuses) have no place in an id or a key. */
const CONTROL = /\p{Cc}/u;

/** A module or entity type in a path: lower case, as it is stored and used in Kafka keys. */
// CONTENT_COLUMN_CHARS written out: a regular expression literal can be checked for linear time.
export const entitySegment = z
  .string()
  .regex(/^[a-z0-9_-]{1,100}$/, { message: 'must be 1-100 characters of a-z, 0-9, _ and -' });

/** An entity id: what the business system calls it, 1-200 characters. */
export const entityId = z
  .string()
  .min(1)
  .max(CONTENT_COLUMN_CHARS.entityId)
  .refine((id) => !CONTROL.test(id), { message: 'must not contain control characters' });

/** True when `id` is acceptable as an entity id (for ids that arrive in a list, not one by one). */
export const isEntityId = (id: string): boolean => entityId.safeParse(id).success;
