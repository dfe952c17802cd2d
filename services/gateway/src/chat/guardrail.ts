import { AppError } from '@tp/runtime';

import type { ModerateText } from '../moderation/moderate/moderate-text.js';

export type GuardrailMode = 'off' | 'keyword' | 'keyword+nli';

export interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
}

/**
 * Checks every message (every role, every text a part carries) before a chat request leaves the gateway: the keyword terms of
 * POST /api/v1/moderate, and with `keyword+nli` the NLI check for messages the terms found clean.
 * A flagged message blocks the request with 400 CONTENT_BLOCKED; an NLI service that cannot answer
 * blocks it with its own 503 (the guardrail fails closed).
 */
export class ChatGuardrail {
  constructor(
    readonly mode: GuardrailMode,
    private readonly moderate: ModerateText,
  ) {}

  async check(messages: readonly ChatMessage[], signal: AbortSignal, requestId?: string): Promise<void> {
    if (this.mode === 'off') return;
    // Every role: a system or tool message, or an earlier "assistant" turn the client wrote itself,
    // reaches the model as much as a user message does.
    for (const [index, message] of messages.entries()) {
      const text = readableText(message);
      if (text.trim() === '') continue;
      const mode = this.mode === 'keyword' ? 'keyword' : 'hybrid';
      const result = await this.moderate.execute({ text, mode }, signal, requestId);
      if (!result.flagged) continue;
      const terms = [...new Set(result.matches.map((m) => m.term))];
      throw new AppError(
        'CONTENT_BLOCKED',
        `messages[${index}] was blocked by the content guardrail (${terms.length > 0 ? 'moderation terms' : 'NLI check'})`,
        { message_index: index, reason: terms.length > 0 ? 'terms' : 'nli', terms },
      );
    }
  }
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
