import type { DeadLetterFilter, DeadLetterSelection } from '@tp/pipeline';
import { codePointString } from '@tp/runtime';
import { z } from 'zod';

import { dateTime } from './dead-letter.schemas.js';

/** Largest `ids` list one request may name. */
export const MAX_IDS_PER_REQUEST = 1000;

/** An error code, topic or consumer group to match exactly. */
const kindField = (what: string) =>
  codePointString(255)
    .min(1)
    .optional()
    .meta({ description: `Only entries whose ${what} is exactly this.` });

/** The kind-of-failure filters shared by the listing (query) and replay/purge (body). */
export const filterFields = {
  code: kindField('error code (e.g. `TRANSLATION_FAILED`)'),
  topic: kindField('original topic (e.g. `translation.requested.v1`)'),
  group: kindField('consumer group (e.g. `translator.engines`)'),
};

/** The filters given, as the index takes them; undefined when none is. */
export function filterOf(fields: {
  code?: string;
  topic?: string;
  group?: string;
}): DeadLetterFilter | undefined {
  const filter = {
    ...(fields.code !== undefined ? { code: fields.code } : {}),
    ...(fields.topic !== undefined ? { topic: fields.topic } : {}),
    ...(fields.group !== undefined ? { group: fields.group } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/**
 * `{ids}`, `{from, to}`, `{all: true}` or filters alone (every entry of that kind): exactly one kind of
 * selection; `code`/`topic`/`group` narrow a range or `all`, never ids.
 */
export const selectionBody = z
  .strictObject({
    ids: z
      .array(z.int().positive())
      .min(1)
      .max(MAX_IDS_PER_REQUEST)
      .optional()
      .meta({ description: 'These entries; an unknown id fails the request before anything is done.' }),
    from: dateTime.optional().meta({ description: 'Entries that failed at or after this time (with `to`).' }),
    to: dateTime.optional().meta({ description: 'Entries that failed before this time (with `from`).' }),
    all: z.literal(true).optional().meta({ description: 'Every entry present when the request starts.' }),
    ...filterFields,
    dry_run: z.boolean().optional().meta({
      description: 'Count the entries the request would take, and take none (`selected` is the count).',
    }),
  })
  .superRefine((body, ctx) => {
    const filtered = filterOf(body) !== undefined;
    const kinds = [body.ids, body.from ?? body.to, body.all].filter((v) => v !== undefined).length;
    if (kinds > 1 || (kinds === 0 && !filtered)) {
      ctx.addIssue({
        code: 'custom',
        message: 'give exactly one of: ids, from and to, all (or only code, topic, group)',
        path: [],
      });
    } else if (body.ids !== undefined && filtered) {
      ctx.addIssue({
        code: 'custom',
        message: 'ids do not combine with code, topic or group',
        path: ['ids'],
      });
    } else if ((body.from === undefined) !== (body.to === undefined)) {
      const missing = body.from === undefined ? 'from' : 'to';
      ctx.addIssue({ code: 'custom', message: 'from and to go together', path: [missing] });
    } else if (
      body.from !== undefined &&
      body.to !== undefined &&
      Date.parse(body.from) > Date.parse(body.to)
    ) {
      ctx.addIssue({ code: 'custom', message: 'must not be after to', path: ['from'] });
    }
  })
  .meta({
    description:
      'Which entries: `{"ids": [..]}`, `{"from": .., "to": ..}` (failure time, ISO 8601, `to` exclusive), `{"all": true}`, or only `code`/`topic`/`group` (every entry of that kind, which also narrow a range or `all`). `"dry_run": true` counts without acting.',
  });

export function selectionOf(body: z.output<typeof selectionBody>): DeadLetterSelection {
  if (body.ids) return { ids: body.ids };
  const filter = filterOf(body);
  const narrowed = filter ? { filter } : {};
  if (body.from !== undefined && body.to !== undefined) {
    return { from: new Date(body.from), to: new Date(body.to), ...narrowed };
  }
  return { all: true, ...narrowed };
}
