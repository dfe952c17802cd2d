import type { DeadLetterFilter, DeadLetterSelection } from '@tp/pipeline';
import { z } from 'zod';

/** The selection options of `replay` and `purge`, as commander hands them over. */
export interface SelectionOptions {
  readonly id?: readonly string[];
  readonly from?: string;
  readonly to?: string;
  readonly all?: boolean;
  readonly code?: string;
  readonly topic?: string;
  readonly group?: string;
}

/** The kind-of-failure options (`--code`, `--topic`, `--group`) given; undefined when none is. */
export function filterFromOptions(given: {
  readonly code?: string;
  readonly topic?: string;
  readonly group?: string;
}): DeadLetterFilter | undefined {
  const filter = {
    ...(given.code !== undefined ? { code: given.code } : {}),
    ...(given.topic !== undefined ? { topic: given.topic } : {}),
    ...(given.group !== undefined ? { group: given.group } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

const id = z.string().regex(/^[1-9]\d{0,14}$/, { message: 'must be a dead-letter id (a positive integer)' });
const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });

const options = z
  .object({
    id: z.array(id).optional(),
    from: dateTime.optional(),
    to: dateTime.optional(),
    all: z.boolean().optional(),
    code: z.string().min(1).optional(),
    topic: z.string().min(1).optional(),
    group: z.string().min(1).optional(),
  })
  .superRefine((o, ctx) => {
    const filtered = filterFromOptions(o) !== undefined;
    const kinds = [o.id?.length ? o.id : undefined, o.from ?? o.to, o.all || undefined].filter(
      (v) => v !== undefined,
    ).length;
    if (kinds > 1 || (kinds === 0 && !filtered)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'give exactly one of: --id <id>..., --from and --to, --all (or only --code, --topic, --group)',
      });
    } else if (o.id?.length && filtered) {
      ctx.addIssue({ code: 'custom', message: '--id does not combine with --code, --topic or --group' });
    } else if ((o.from === undefined) !== (o.to === undefined)) {
      ctx.addIssue({ code: 'custom', message: '--from and --to go together' });
    } else if (o.from !== undefined && o.to !== undefined && Date.parse(o.from) > Date.parse(o.to)) {
      ctx.addIssue({ code: 'custom', message: '--from must not be after --to' });
    }
  });

/** The entries `replay` or `purge` act on; throws with a message for people when the options are wrong. */
export function selectionFromOptions(given: SelectionOptions): DeadLetterSelection {
  const parsed = options.safeParse(given);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues
        .map((i) => (i.path.length ? `--${String(i.path[0])}: ${i.message}` : i.message))
        .join('; '),
    );
  }
  const o = parsed.data;
  if (o.id?.length) return { ids: o.id.map(Number) };
  const filter = filterFromOptions(o);
  const narrowed = filter ? { filter } : {};
  if (o.from !== undefined && o.to !== undefined) {
    return { from: new Date(o.from), to: new Date(o.to), ...narrowed };
  }
  return { all: true, ...narrowed };
}
