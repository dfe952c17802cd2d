import { FREE_TEXT_ENTITY_TYPE, type ContentChangedData, type ContentDeletedData } from '@tp/contracts';
import { TEXT_FORMATS } from '@tp/translation';
import { z } from 'zod';

import { CONTENT_COLUMN_CHARS } from './stored-field.js';

// The rulebook of ContentChanged and ContentDeleted: what a business system may name and send, for
// the gateway's request schemas (a 400 naming the rule) and for the planner (a CONTENT_INVALID dead
// letter naming it, for a message produced to Kafka directly). Content that breaks a rule could never
// be read back through the API, so it is never stored.

/** Control characters (U+0000 among them, which Postgres refuses) have no place in an id or a name. */
const CONTROL = /\p{Cc}/u;

/**
 * A module or an entity type: lower case, as the read paths address it and Kafka keys carry it.
 * CONTENT_COLUMN_CHARS.module and .entityType (100) written out: a literal is checked for linear time.
 */
export const entitySegment = z
  .string()
  .regex(/^[a-z0-9_-]{1,100}$/, { message: 'must be 1-100 characters of a-z, 0-9, _ and -' });

/** An entity id: what the business system calls it, 1-200 characters (code points), no control character. */
export const entityId = z
  .string()
  .min(1)
  .max(CONTENT_COLUMN_CHARS.entityId)
  .refine((id) => !CONTROL.test(id), { message: 'must not contain control characters' });

/** True when `id` is acceptable as an entity id (for ids that arrive in a list, not one by one). */
export const isEntityId = (id: string): boolean => entityId.safeParse(id).success;

/**
 * A field name of an entity, in a report and in an editor's translations: a field outside this set
 * can never be stored, so an edit naming one is refused the same way.
 */
export const fieldName = z
  .string()
  // CONTENT_COLUMN_CHARS.field written out: a literal can be checked for linear time.
  .regex(/^[A-Za-z0-9_.-]{1,100}$/, {
    message: 'field names are 1-100 characters of A-Z, a-z, 0-9, _, . and -',
  })
  // JSON.parse keeps it as a key, but it would not survive as one in an object: the gateway refuses
  // it before zod, which would leave it out without an issue; the document says so here.
  .meta({ not: { const: '__proto__' } });

/** What the documents say of field names. */
export const FIELD_NAME_RULE = 'Field names are 1 to 100 of A-Z, a-z, 0-9, _, . and -, except __proto__.';

/**
 * A field's text: not empty, no U+0000, and at most `maxChars` characters (code points) where a limit
 * applies (the gateway's MAX_TEXT_CHARS; a message produced to Kafka is bounded by the topic's size).
 */
export function contentText(maxChars?: number) {
  const text =
    maxChars === undefined
      ? z.string()
      : z.string().max(maxChars, { message: `text must be at most ${maxChars} characters` });
  return text
    .min(1, { message: 'text must not be empty' })
    .refine((t) => !t.includes('\u0000'), { message: 'text must not contain U+0000' });
}

/** The entity's version in the business system: a non-negative safe integer, growing with each change. */
export const sourceVersion = z.int().nonnegative();

/** Most fields one report may carry. */
export const MAX_REPORTED_FIELDS = 200;

/**
 * Entity types a business system may not report or delete: `text` files the results of POST
 * /api/v1/translate, and `tracking` is taken by the path GET /api/v1/content/tracking/{tracking_id}
 * (content of that type could never be read back). A map: `constructor` is a type like any other.
 */
const RESERVED_TYPES: ReadonlyMap<string, string> = new Map([
  [FREE_TEXT_ENTITY_TYPE, 'is reserved for the results of POST /api/v1/translate'],
  ['tracking', 'is reserved: GET /api/v1/content/tracking/{tracking_id} tracks reports'],
]);

/** Why `type` is reserved, or undefined when a business system may use it. */
export const reservedTypeReason = (type: string): string | undefined => RESERVED_TYPES.get(type);

const reportedType = entitySegment.superRefine((type, ctx) => {
  const reason = reservedTypeReason(type);
  if (reason) ctx.addIssue({ code: 'custom', message: `${type} ${reason}` });
});

/** ContentChanged's data as the rules accept it (the source language is checked against the list apart). */
export const contentChangedRules = z.object({
  module: entitySegment,
  entityType: reportedType,
  entityId,
  sourceLang: z.string(),
  sourceVersion,
  fields: z
    .array(z.object({ name: fieldName, text: contentText(), format: z.enum(TEXT_FORMATS) }))
    .min(1, { message: 'at least one field is needed' })
    .max(MAX_REPORTED_FIELDS, { message: `at most ${MAX_REPORTED_FIELDS} fields per report` })
    .superRefine((fields, ctx) => {
      const first = new Map<string, number>();
      fields.forEach(({ name }, i) => {
        const at = first.get(name);
        if (at === undefined) first.set(name, i);
        else ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `the name of fields.${at} again` });
      });
    }),
});

/** ContentDeleted's data as the rules accept it; a deletion without a version takes the highest stored. */
export const contentDeletedRules = z.object({
  module: entitySegment,
  entityType: reportedType,
  entityId,
  sourceVersion: sourceVersion.nullable(),
});

/** Most broken rules named one by one; the rest are counted (a message may have thousands of fields). */
const MAX_NAMED_RULES = 10;

/** The names of an entity as stored (module unknown when only translations name it). */
const entityNameRules = z.object({ module: entitySegment.nullable(), entityType: reportedType, entityId });

/**
 * The rules `data` breaks, as `path: rule; ...` (`entityType: must be 1-100 characters of a-z, 0-9, _
 * and -`), at most MAX_NAMED_RULES of them named; undefined when it keeps them all.
 */
export function brokenContentRules(data: ContentChangedData | ContentDeletedData): string | undefined {
  return describeBroken(('fields' in data ? contentChangedRules : contentDeletedRules).safeParse(data));
}

/** brokenContentRules for the names of a stored entity: its module (null: unknown), type and id. */
export function brokenEntityNameRules(names: {
  readonly module: string | null;
  readonly entityType: string;
  readonly entityId: string;
}): string | undefined {
  return describeBroken(entityNameRules.safeParse(names));
}

function describeBroken(result: z.ZodSafeParseResult<unknown>): string | undefined {
  if (result.success) return undefined;
  const { issues } = result.error;
  const named = issues
    .slice(0, MAX_NAMED_RULES)
    .map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
  const more = issues.length - named.length;
  return named.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
