import { once } from 'node:events';

import type { Response as ExpressResponse } from 'express';

import { usageOf, type Usage } from './upstream.js';

/** The client read nothing for longer than the stall limit while the gateway had frames for it. */
export class SlowReaderError extends Error {
  override readonly name = 'SlowReaderError';
  constructor(stallMs: number) {
    super(`the client read nothing for ${stallMs} ms`);
  }
}

/** Opening frames held back before the stream starts; past this the stream starts anyway. */
const MAX_HELD_CHARS = 16_384;

/**
 * The client's side of a streamed completion: frames the provider's chunks, holds back the opening
 * `{role: "assistant"}` chunks until one with substance comes (so a failing provider can still be
 * replaced unseen), writes once per read from the provider, and waits for the socket to drain when
 * the client reads slower than the provider sends: the gateway then stops reading the provider too,
 * so it holds at most one read. Counts the answer text it relayed, for the usage of a stream cut short.
 */
export class ClientStream {
  started = false;
  usage: Usage | undefined;
  /** Characters of answer text written to the client (content, refusals, tool-call arguments). */
  relayedChars = 0;
  private held: string[] = [];
  private heldChars = 0;
  private out = '';
  private outChars = 0;

  constructor(
    private readonly res: ExpressResponse,
    private readonly includeUsage: boolean,
    private readonly stallMs: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Takes one chunk of the provider (`data` as it came) into the next write. */
  add(chunk: Record<string, unknown>, data: string): void {
    this.usage = usageOf(chunk) ?? this.usage;
    const usageOnly = Array.isArray(chunk.choices) && chunk.choices.length === 0 && usageOf(chunk);
    if (!this.includeUsage && usageOnly) return;
    // Relayed as sent, unless the usage the client did not ask for has to come out.
    const strip = !this.includeUsage && 'usage' in chunk;
    if (strip) delete chunk.usage;
    const frame = `data: ${strip ? JSON.stringify(chunk) : data}\n\n`;
    if (!this.started && !substantive(chunk) && this.heldChars < MAX_HELD_CHARS) {
      this.held.push(frame);
      this.heldChars += frame.length;
      return;
    }
    if (!this.started) this.start();
    this.out += frame;
    this.outChars += answerChars(chunk);
  }

  /**
   * Writes what the last read brought; when the socket's buffer is full, waits for it to drain, and
   * throws SlowReaderError when that takes longer than the stall limit. A client that leaves ends the
   * wait (its signal aborts the provider call).
   */
  async flush(): Promise<void> {
    if (!this.started || this.out === '') return;
    const more = this.res.write(this.out);
    this.relayedChars += this.outChars;
    this.out = '';
    this.outChars = 0;
    if (more || this.signal.aborted) return;
    const stall = AbortSignal.timeout(this.stallMs);
    try {
      await once(this.res, 'drain', { signal: AbortSignal.any([this.signal, stall]) });
    } catch (err) {
      if (stall.aborted && !this.signal.aborted) throw new SlowReaderError(this.stallMs);
      if (!this.signal.aborted) throw err;
    }
  }

  /** The provider's [DONE]: everything not yet written, then [DONE]. */
  finish(): void {
    if (!this.started) this.start();
    this.relayedChars += this.outChars;
    this.res.end(`${this.out}data: [DONE]\n\n`);
  }

  /** A failure after the stream started: what is pending, then one in-band error event. */
  failInBand(error: object): void {
    if (!this.res.headersSent) startStream(this.res);
    this.relayedChars += this.outChars;
    this.res.end(`${this.out}data: ${JSON.stringify(error)}\n\n`);
  }

  /** Lets a client that stopped reading go: its connection is closed, what it did not read dropped. */
  abandon(): void {
    this.res.destroy();
  }

  private start(): void {
    startStream(this.res);
    this.started = true;
    this.out = this.held.join('') + this.out;
    this.held = [];
  }
}

/** A chunk the client must see before a fallback is no longer possible: content, a tool call, an end. */
function substantive(chunk: Record<string, unknown>): boolean {
  if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return true;
  type Choice = { delta?: Record<string, unknown>; finish_reason?: unknown } | null;
  return (chunk.choices as Choice[]).some((choice) => {
    if (choice?.finish_reason !== null && choice?.finish_reason !== undefined) return true;
    const delta = choice?.delta ?? {};
    return Object.entries(delta).some(([name, value]) => name !== 'role' && value !== '' && value !== null);
  });
}

/** Answer text in a chunk's deltas: content, refusal and tool-call arguments, as the model wrote them. */
function answerChars(chunk: Record<string, unknown>): number {
  if (!Array.isArray(chunk.choices)) return 0;
  let chars = 0;
  for (const choice of chunk.choices as ({ delta?: Record<string, unknown> } | null)[]) {
    const delta = choice?.delta ?? {};
    for (const field of [delta.content, delta.refusal]) if (typeof field === 'string') chars += field.length;
    if (!Array.isArray(delta.tool_calls)) continue;
    for (const call of delta.tool_calls as ({ function?: { arguments?: unknown } } | null)[]) {
      const args = call?.function?.arguments;
      if (typeof args === 'string') chars += args.length;
    }
  }
  return chars;
}

export function startStream(res: ExpressResponse): void {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  // Proxies such as nginx must not hold chunks back.
  res.setHeader('x-accel-buffering', 'no');
}
