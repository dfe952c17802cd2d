import { AppError } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../../http/route.js';
import type { ChatUsageStore, UsageSummaryRow } from './chat-usage.store.js';

/** The window summed when the query gives no `since`. */
export const DEFAULT_USAGE_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const dateTime = z.iso.datetime({ offset: true });

const usageQuery = z.strictObject({
  since: dateTime.optional().meta({
    description: `Start of the window, inclusive (ISO 8601 date-time; write a \`+\` offset as \`%2B\`). Default: ${DEFAULT_USAGE_WINDOW_DAYS} days before \`until\`.`,
  }),
  until: dateTime.optional().meta({
    description: 'End of the window, exclusive (ISO 8601 date-time). Default: now.',
  }),
  key_id: z.uuid().optional().meta({ description: 'Only this API key (its `id`).' }),
});

const tokens = {
  requests: z.int().nonnegative().meta({ description: 'Chat completions recorded.' }),
  prompt_tokens: z.int().nonnegative(),
  completion_tokens: z.int().nonnegative(),
  total_tokens: z.int().nonnegative(),
};

const usageRowSchema = z
  .object({
    key_id: z.uuid(),
    key_name: z.string(),
    model: z.string().meta({ description: 'The model the client asked for, which may be an alias.' }),
    ...tokens,
  })
  .meta({ id: 'ChatUsageRow' });

const usageSchema = z.object({
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  rows: z.array(usageRowSchema),
  totals: z.object(tokens),
});

interface UsageWindow {
  readonly since: Date;
  readonly until: Date;
  /** Whether `until` was given: if not, rows the database stamped just after our clock's now still count. */
  readonly bounded: boolean;
}

/** The window a query asks for; `since` after `until` is a validation failure, as schema errors are. */
function usageWindow(
  query: { since?: string | undefined; until?: string | undefined },
  now: Date,
): UsageWindow {
  const until = query.until === undefined ? now : new Date(query.until);
  const since =
    query.since === undefined
      ? new Date(until.getTime() - DEFAULT_USAGE_WINDOW_DAYS * DAY_MS)
      : new Date(query.since);
  if (since > until) {
    const message = `must not be after until (${until.toISOString()})`;
    throw new AppError('VALIDATION_FAILED', `query.since: ${message}`, {
      issues: [{ path: 'query.since', message, code: 'custom' }],
    });
  }
  return { since, until, bounded: query.until !== undefined };
}

function totals(rows: readonly UsageSummaryRow[]) {
  const sum = { requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (const row of rows) {
    sum.requests += row.requests;
    sum.prompt_tokens += row.promptTokens;
    sum.completion_tokens += row.completionTokens;
    sum.total_tokens += row.totalTokens;
  }
  return sum;
}

/** Admin view of the tokens chat completions used, per API key and model. */
export function chatUsageRoutes(store: ChatUsageStore) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/admin/chat/usage',
      summary: 'Chat completion token usage per API key and model',
      description: `Sums the tokens each API key used per requested model in a time window (default: the last ${DEFAULT_USAGE_WINDOW_DAYS} days), as the upstream provider reported them in \`usage\`. Rows are ordered by total tokens, biggest first; revoked keys are included.`,
      tags: ['chat'],
      access: 'admin',
      request: { query: usageQuery },
      response: {
        status: 200,
        description: 'Usage per key and model in the window, and the window’s totals.',
        schema: usageSchema,
      },
      handler: async ({ query }) => {
        const window = usageWindow(query, new Date());
        const rows = await store.summary({
          since: window.since,
          until: window.bounded ? window.until : undefined,
          keyId: query.key_id,
        });
        return {
          since: window.since.toISOString(),
          until: window.until.toISOString(),
          rows: rows.map((row) => ({
            key_id: row.keyId,
            key_name: row.keyName,
            model: row.model,
            requests: row.requests,
            prompt_tokens: row.promptTokens,
            completion_tokens: row.completionTokens,
            total_tokens: row.totalTokens,
          })),
          totals: totals(rows),
        };
      },
    }),
  ];
}
