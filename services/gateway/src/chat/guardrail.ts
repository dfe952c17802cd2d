import { AppError } from '@tp/runtime';

import type { ModerateText } from '../moderation/moderate/moderate-text.js';

export type GuardrailMode = 'off' | 'keyword' | 'keyword+nli';

export interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
}

/**
 * Checks every user message before a chat request leaves the gateway: the keyword terms of
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
    for (const [index, message] of messages.entries()) {
      if (message.role !== 'user') continue;
      const text = textOf(message.content);
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
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      return p?.type === 'text' && typeof p.text === 'string' ? p.text : '';
    })
    .filter(Boolean)
    .join('\n');
}
