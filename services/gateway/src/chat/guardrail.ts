import { AppError } from '@tp/runtime';

import type { ModerateText } from '../moderation/moderate/moderate-text.js';
import { nliChunks } from './nli-chunks.js';

export type GuardrailMode = 'off' | 'keyword' | 'keyword+nli';

export interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
}

export interface GuardrailOptions {
  /** Longest text of one NLI call (the nli service's NLI_MAX_TEXT_CHARS); longer texts go in pieces. */
  readonly nliMaxChars: number;
  /** Most NLI calls of one request in flight at once. */
  readonly nliConcurrency: number;
}

/**
 * Checks every message (every role, every text a part carries) before a chat request leaves the gateway:
 * the keyword terms of POST /api/v1/moderate, and with `keyword+nli` the NLI check of every message
 * (in pieces of at most `nliMaxChars`, at most `nliConcurrency` calls at once) once the terms found
 * them all clean. A flagged message blocks the request with 400 CONTENT_BLOCKED; an NLI service that
 * cannot answer blocks it with its own 503 (the guardrail fails closed).
 */
export class ChatGuardrail {
  constructor(
    readonly mode: GuardrailMode,
    private readonly moderate: ModerateText,
    private readonly options: GuardrailOptions = { nliMaxChars: 2000, nliConcurrency: 4 },
  ) {}

  async check(messages: readonly ChatMessage[], signal: AbortSignal, requestId?: string): Promise<void> {
    if (this.mode === 'off') return;
    // Every role: a system or tool message, or an earlier "assistant" turn the client wrote itself,
    // reaches the model as much as a user message does.
    const texts = messages.map(readableText);
    for (const [index, text] of texts.entries()) {
      if (text.trim() === '') continue;
      const result = await this.moderate.execute({ text, mode: 'keyword' }, signal, requestId);
      if (!result.flagged) continue;
      const terms = [...new Set(result.matches.map((m) => m.term))];
      throw blocked(index, 'moderation terms', { reason: 'terms', terms });
    }
    if (this.mode === 'keyword+nli') await this.checkNli(texts, signal, requestId);
  }

  /** Every piece of every message through NLI; the first unsafe piece stops the others. */
  private async checkNli(texts: readonly string[], signal: AbortSignal, requestId?: string): Promise<void> {
    const pieces = texts.flatMap((text, index) =>
      nliChunks(text, this.options.nliMaxChars).map((piece) => ({ index, piece })),
    );
    const stop = new AbortController();
    const either = AbortSignal.any([signal, stop.signal]);
    let flagged: number | undefined;
    await inPool(pieces, this.options.nliConcurrency, async ({ index, piece }) => {
      if (flagged !== undefined || either.aborted) return;
      try {
        const verdict = await this.moderate.nliVerdict(piece, either, requestId);
        if (!verdict.is_safe && flagged === undefined) {
          flagged = index;
          stop.abort();
        }
      } catch (err) {
        // Calls cut short because another piece was already flagged do not count.
        if (flagged === undefined) throw err;
      }
    });
    if (flagged !== undefined) throw blocked(flagged, 'NLI check', { reason: 'nli', terms: [] });
  }
}

function blocked(index: number, by: string, details: { reason: string; terms: string[] }): AppError {
  return new AppError('CONTENT_BLOCKED', `messages[${index}] was blocked by the content guardrail (${by})`, {
    message_index: index,
    ...details,
  });
}

/**
 * Runs `work` on every item with at most `limit` at once; rejects with the first failure once the
 * calls in flight have settled (the others are not started).
 */
async function inPool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next] as T;
      next += 1;
      await work(item).catch((err: unknown) => {
        failure ??= { err };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
}

/** A message's text: its string content, or the text parts of a multi-part content joined. */
export function textOf(content: unknown): string {
  return [...strings(content, 0)].join('\n');
}

/**
 * Everything of a message the provider reads as text: its content in any form (strings, parts of any
 * type with `text`, `input_text`, `output_text`, `refusal`, nested tool-result content), its `name`,
 * and the names and arguments of tool and function calls.
 */
export function readableText(message: ChatMessage): string {
  const m = message as ChatMessage & { name?: unknown; tool_calls?: unknown; function_call?: unknown };
  return [
    ...strings(m.content, 0),
    ...strings(m.name, 0),
    ...strings(m.tool_calls, 0),
    ...strings(m.function_call, 0),
  ]
    .filter((text) => text !== '')
    .join('\n');
}

/** Fields whose string values are read by a model; `type`, ids, URLs and image data are not. */
const TEXT_FIELDS = new Set([
  'text',
  'input_text',
  'output_text',
  'refusal',
  'content',
  'name',
  'arguments',
  'function',
]);
/** Deeper than this, nothing is text (parts of parts of tool results); bounds the walk. */
const MAX_DEPTH = 6;

function* strings(value: unknown, depth: number): Generator<string> {
  if (typeof value === 'string') {
    yield value;
    return;
  }
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) yield* strings(item, depth + 1);
    return;
  }
  for (const [field, inner] of Object.entries(value)) {
    if (TEXT_FIELDS.has(field)) yield* strings(inner, depth + 1);
  }
}
