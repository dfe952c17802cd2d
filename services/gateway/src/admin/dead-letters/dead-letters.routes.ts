import { payloadView, type DeadLetterIndex } from '@tp/pipeline';
import { AppError } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';
import { z } from 'zod';

import { defineRoute } from '../../http/route.js';
import { filterFields, filterOf, selectionBody, selectionOf } from './dead-letter-selection.body.js';
import {
  dateTime,
  deadLetterSchema,
  deadLetterSummarySchema,
  detailJson,
  entryId,
  summaryJson,
} from './dead-letter.schemas.js';

const DEFAULT_LIST_LIMIT = 50;
const MAX_LIST_LIMIT = 500;
const TAGS = ['admin: translation'];

const listQuery = z
  .strictObject({
    limit: z
      .string()
      .regex(/^\d{1,4}$/, { message: `must be an integer from 1 to ${MAX_LIST_LIMIT}` })
      .transform(Number)
      .pipe(z.int().min(1).max(MAX_LIST_LIMIT))
      .optional()
      .meta({ description: `Entries per page (default ${DEFAULT_LIST_LIMIT}, at most ${MAX_LIST_LIMIT}).` }),
    before_id: entryId
      .optional()
      .meta({ description: 'Entries older than this id: `next_before_id` of the last page.' }),
    from: dateTime.optional().meta({ description: 'Entries that failed at or after this time (ISO 8601).' }),
    to: dateTime.optional().meta({ description: 'Entries that failed before this time (ISO 8601).' }),
    ...filterFields,
  })
  .superRefine((query, ctx) => {
    if (query.from !== undefined && query.to !== undefined && Date.parse(query.from) > Date.parse(query.to)) {
      ctx.addIssue({ code: 'custom', message: 'must not be after to', path: ['from'] });
    }
  });

const outcomeSchema = {
  selected: z.int().nonnegative().meta({ description: 'Entries the selection matched at the start.' }),
  gone: z.int().nonnegative().meta({
    description: 'Entries that left the index meanwhile (replayed, purged or evicted by someone else).',
  }),
  dry_run: z
    .literal(true)
    .meta({ description: 'Present on a dry run, when nothing was done: `selected` is what would be taken.' })
    .optional(),
};

const kindSchema = z
  .object({
    code: z.string().meta({ description: 'The error code.' }),
    topic: z.string().meta({ description: 'The original topic.' }),
    group: z.string().meta({ description: 'The consumer group.' }),
    count: z.int().positive(),
  })
  .meta({ id: 'DeadLetterKind' });

type ListQuery = z.output<typeof listQuery>;

/** The index's list/count query for the listing's parameters (without paging). */
function countQuery(query: ListQuery) {
  const filter = filterOf(query);
  return {
    ...(query.from !== undefined ? { from: new Date(query.from) } : {}),
    ...(query.to !== undefined ? { to: new Date(query.to) } : {}),
    ...(filter ? { filter } : {}),
  };
}

/**
 * Operators' view of the dead-letter index (the worker fills it from translation.dlq.v1); the CLI
 * `npm run dlq` does the same against the database.
 */
export function deadLetterRoutes(index: DeadLetterIndex, codec: EventCodec) {
  return [listRoute(index), entryRoute(index, codec), replayRoute(index), purgeRoute(index)];
}

const listRoute = (index: DeadLetterIndex) =>
  defineRoute({
    method: 'get',
    path: '/api/admin/translate/dead-letters',
    summary: 'List dead letters, newest first',
    description: `The index keeps the newest ${index.maxEntries} dead letters; older ones stay on the dead-letter topic only. Filter by failure time and by kind of failure (\`code\`, \`topic\`, \`group\`); \`kinds\` lists the kinds present.`,
    tags: TAGS,
    access: 'admin',
    request: { query: listQuery },
    response: {
      status: 200,
      description: 'A page of entries (without payloads) and the size of the index.',
      schema: z.object({
        entries: z.array(deadLetterSummarySchema),
        total: z.int().nonnegative().meta({ description: 'Entries in the index, whatever the filters.' }),
        matched: z
          .int()
          .nonnegative()
          .meta({ description: 'Entries the filters (time, code, topic, group) match, over all pages.' }),
        kinds: z
          .array(kindSchema)
          .meta({ description: 'Every kind of failure in the index with its count, largest first.' }),
        next_before_id: z
          .int()
          .positive()
          .nullable()
          .meta({ description: 'Pass as `before_id` for the next page; null on the last page.' }),
      }),
    },
    handler: async ({ query }) => {
      const limit = query.limit ?? DEFAULT_LIST_LIMIT;
      const matching = countQuery(query);
      const [entries, total, matched, kinds] = await Promise.all([
        index.list({
          limit,
          ...(query.before_id !== undefined ? { beforeId: query.before_id } : {}),
          ...matching,
        }),
        index.count(),
        index.count(matching),
        index.kinds(),
      ]);
      const last = entries.at(-1);
      return {
        entries: entries.map(summaryJson),
        total,
        matched,
        kinds,
        next_before_id: entries.length === limit && last ? last.id : null,
      };
    },
  });

const entryRoute = (index: DeadLetterIndex, codec: EventCodec) =>
  defineRoute({
    method: 'get',
    path: '/api/admin/translate/dead-letters/{id}',
    summary: 'One dead letter with its headers and payload',
    description:
      'The payload is decoded with its Avro schema when possible; otherwise it is shown as base64 with the reason.',
    tags: TAGS,
    access: 'admin',
    request: { params: z.strictObject({ id: entryId }) },
    response: { status: 200, description: 'The entry.', schema: deadLetterSchema },
    errors: ['DEAD_LETTER_NOT_FOUND'],
    handler: async ({ params }) => {
      const entry = await index.get(params.id);
      if (!entry) throw new AppError('DEAD_LETTER_NOT_FOUND', `no dead letter with id ${params.id}`);
      return detailJson(entry, payloadView(codec, entry.payload, entry.headers));
    },
  });

const replayRoute = (index: DeadLetterIndex) =>
  defineRoute({
    method: 'post',
    path: '/api/admin/translate/dead-letters/replay',
    summary: 'Replay dead letters to their original topics',
    description:
      'Each entry goes back to its original topic with its original key, bytes and headers (plus `tp-replayed-from`), through the outbox; it leaves the index in the same transaction. Every consumer group of that topic sees it again. An entry whose key the outbox cannot carry stays, listed in `refused`.',
    tags: TAGS,
    access: 'admin',
    request: { body: selectionBody },
    response: {
      status: 200,
      description: 'What was replayed.',
      schema: z.object({
        ...outcomeSchema,
        replayed: z.int().nonnegative(),
        refused: z.array(z.object({ id: z.int().positive(), reason: z.string() })),
      }),
    },
    errors: ['DEAD_LETTER_NOT_FOUND'],
    handler: async ({ body }) => {
      const selection = selectionOf(body);
      if (body.dry_run) {
        const selected = await index.countSelected(selection);
        return { selected, replayed: 0, gone: 0, refused: [], dry_run: true as const };
      }
      const outcome = await index.replay(selection);
      return { ...outcome, refused: [...outcome.refused] };
    },
  });

const purgeRoute = (index: DeadLetterIndex) =>
  defineRoute({
    method: 'post',
    path: '/api/admin/translate/dead-letters/purge',
    summary: 'Delete dead letters from the index',
    description: 'The messages stay on the dead-letter topic until its retention ends.',
    tags: TAGS,
    access: 'admin',
    request: { body: selectionBody },
    response: {
      status: 200,
      description: 'What was deleted.',
      schema: z.object({ ...outcomeSchema, purged: z.int().nonnegative() }),
    },
    errors: ['DEAD_LETTER_NOT_FOUND'],
    handler: async ({ body }) => {
      const selection = selectionOf(body);
      if (body.dry_run) {
        return { selected: await index.countSelected(selection), purged: 0, gone: 0, dry_run: true as const };
      }
      return index.purge(selection);
    },
  });
