import type { DeadLetterSelection } from '@tp/pipeline';
import { z } from 'zod';

import { dateTime } from './dead-letter.schemas.js';

/** Largest `ids` list one request may name. */
export const MAX_IDS_PER_REQUEST = 1000;

/** `{ids}`, `{from, to}` or `{all: true}`: exactly one, checked with the other body rules. */
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
  })
  .superRefine((body, ctx) => {
    const kinds = [body.ids, body.from ?? body.to, body.all].filter((v) => v !== undefined).length;
    if (kinds !== 1) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of: ids, from and to, all', path: [] });
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
      'Which entries: `{"ids": [..]}`, `{"from": .., "to": ..}` (failure time, ISO 8601, `to` exclusive) or `{"all": true}`.',
  });

export function selectionOf(body: z.output<typeof selectionBody>): DeadLetterSelection {
  if (body.ids) return { ids: body.ids };
  if (body.from !== undefined && body.to !== undefined) {
    return { from: new Date(body.from), to: new Date(body.to) };
  }
  return { all: true };
}
