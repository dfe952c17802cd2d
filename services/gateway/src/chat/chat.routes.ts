import { codePoints, codePointString, requestId } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import type { BudgetStore } from '../keys/budgets/budget.store.js';
import { tokenEstimate, withTokenBudget } from '../keys/budgets/budgets.js';
import { completeOnce, completeStream, type Completed, type StreamSettings } from './complete-chat.js';
import { readableText, type ChatGuardrail, type ChatMessage } from './guardrail.js';
import type { ProviderRegistry } from './providers.js';
import type { ChatUsage } from './usage/chat-usage.store.js';
import { estimatedTokens } from './usage/record-usage.js';

const message = z
  .looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
  })
  .meta({ id: 'ChatMessage' });

/** Most messages in one request, and most characters (code points) of text across them (all roles and parts). */
export const MAX_CHAT_MESSAGES = 500;
export const MAX_CHAT_CHARS = 400_000;

/** OpenAI's request: the fields checked here, any other parameter passed on to the provider as is. */
const chatRequest = z.looseObject({
  model: codePointString(200).min(1).meta({ description: 'A model or alias from `GET /v1/models`.' }),
  messages: z
    .array(message)
    .min(1)
    .max(MAX_CHAT_MESSAGES)
    .refine(
      (messages) => messages.reduce((sum, m) => sum + codePoints(readableText(m)), 0) <= MAX_CHAT_CHARS,
      {
        error: `messages may hold at most ${MAX_CHAT_CHARS} characters of text in all`,
      },
    )
    .meta({
      description: `1 to ${MAX_CHAT_MESSAGES} messages, with at most ${MAX_CHAT_CHARS} characters (code points) of text in all, every role and part.`,
    }),
  stream: z.boolean().optional().meta({ description: 'true answers `text/event-stream` chunks.' }),
  stream_options: z
    .looseObject({ include_usage: z.boolean().optional() })
    .nullable()
    .optional()
    .meta({ description: '`include_usage: true` adds a last chunk with `usage` before `[DONE]`.' }),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  n: z.number().int().min(1).max(128).optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4)])
    .nullable()
    .optional(),
  user: z.string().optional(),
});

const chatCompletion = z
  .looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number(),
    model: z.string(),
    choices: z.array(
      z.looseObject({
        index: z.number(),
        message: z.looseObject({ role: z.string(), content: z.string().nullable() }),
        finish_reason: z.string().nullable(),
      }),
    ),
    usage: z
      .looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() })
      .optional(),
  })
  .meta({ id: 'ChatCompletion' });

const modelList = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() }),
  ),
});

export interface ChatRouteOptions {
  readonly registry: ProviderRegistry;
  readonly guardrail: ChatGuardrail;
  /** Where token usage per key goes (Postgres, retried); a failure to record is never the client's. */
  readonly usage: { record(usage: ChatUsage): Promise<void> };
  /** The key's chat-token budgets, reserved before a provider is called and settled after. */
  readonly budgets: BudgetStore;
  readonly stream: StreamSettings;
}

/**
 * What one completion is charged: the provider's usage when it sent one; else (a stream cut short
 * before the provider's last chunk) an estimate of CHARS_PER_TOKEN characters a token, of every
 * message's text for the prompt and of the answer text relayed to the client for the completion.
 */
export function usageRecord(
  done: Completed,
  body: { readonly model: string; readonly messages: readonly ChatMessage[]; readonly stream?: boolean },
  keyId: string,
  id: string,
): ChatUsage {
  const prompt =
    done.usage?.prompt_tokens ??
    estimatedTokens(body.messages.reduce((sum, m) => sum + readableText(m).length, 0));
  const completion = done.usage?.completion_tokens ?? estimatedTokens(done.relayedChars);
  return {
    keyId,
    requestId: id,
    model: body.model,
    upstreamModel: done.target.model,
    provider: done.target.provider.name,
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: done.usage?.total_tokens ?? prompt + completion,
    stream: body.stream === true,
  };
}

const STARTED = Math.floor(Date.now() / 1000);

export function chatRoutes(options: ChatRouteOptions) {
  return [completionsRoute(options), modelsRoute(options.registry)];
}

const completionsRoute = ({ registry, guardrail, usage, budgets, stream }: ChatRouteOptions) =>
  defineRoute({
    method: 'post',
    path: '/v1/chat/completions',
    summary: 'Chat completion (OpenAI-compatible)',
    description:
      'Relays an OpenAI chat-completions request to the configured providers, in order, falling back on connection errors, timeouts, 429 and 5xx (for streams too, until the first chunk is sent). User messages pass the content guardrail first; a key whose chat-token budget is spent gets 429 `insufficient_quota` before any provider is called. With `stream: true` the answer is `text/event-stream`: `data: {chunk}` events, then `data: [DONE]`; a failure after the first chunk comes in-band as `data: {"error": ...}`. Errors use OpenAI\'s error shape.',
    tags: ['chat'],
    access: 'client',
    envelope: false,
    request: { body: chatRequest },
    response: {
      status: 200,
      description: 'The completion; with `stream: true`, a stream of completion chunks.',
      schema: chatCompletion,
      eventStream:
        '`data: {chat.completion.chunk}` events, a usage chunk with `choices: []` when `stream_options.include_usage` is true, then `data: [DONE]`; a failure after the first chunk is one `data: {"error": {...}}` event and no `[DONE]`.',
    },
    errors: [
      'CONTENT_BLOCKED',
      'MODEL_NOT_FOUND',
      'QUOTA_EXCEEDED',
      'UPSTREAM_RATE_LIMITED',
      'UPSTREAM_FAILED',
      'CHAT_UNAVAILABLE',
    ],
    handler: async ({ body, principal, req, res, signal }) => {
      const targets = registry.targets(body.model);
      await guardrail.check(body.messages, signal, requestId(req));
      if (!principal) throw new Error('keyed route reached without a principal');
      const includeUsage = body.stream_options?.include_usage === true;
      const characters = body.messages.reduce((sum, m) => sum + readableText(m).length, 0);
      const keyId = principal.keyId;
      // One usage record per completion: what the budget is settled with is what chat_usage stores.
      let record: ChatUsage | undefined;
      const done = await withTokenBudget(
        budgets,
        principal,
        tokenEstimate(characters),
        req,
        () =>
          body.stream
            ? completeStream(targets, body, includeUsage, res, signal, stream)
            : completeOnce(targets, body, res, signal),
        (result) => {
          record = result ? usageRecord(result, body, keyId, requestId(req)) : undefined;
          return record?.totalTokens ?? 0;
        },
      );
      if (done && record) {
        // Not awaited: the answer has gone out; the recorder retries and never rejects.
        void usage.record(record);
      }
      // The answer has been written (or the client is gone).
      return undefined as never;
    },
  });

const modelsRoute = (registry: ProviderRegistry) =>
  defineRoute({
    method: 'get',
    path: '/v1/models',
    summary: 'Models (OpenAI-compatible)',
    description: "The configured providers' models and the aliases, as OpenAI's model list.",
    tags: ['chat'],
    access: 'client',
    envelope: false,
    response: { status: 200, description: 'The models.', schema: modelList },
    handler: () => ({
      object: 'list' as const,
      data: registry
        .models()
        .map((m) => ({ id: m.id, object: 'model' as const, created: STARTED, owned_by: m.owned_by })),
    }),
  });
