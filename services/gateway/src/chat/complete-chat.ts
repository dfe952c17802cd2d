import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Response as ExpressResponse } from 'express';

import { ClientStream, SlowReaderError } from './client-stream.js';
import type { Target } from './providers.js';
import {
  isSuccess,
  allFailed,
  fallsBack,
  retryAfterSeconds,
  UpstreamCall,
  usageOf,
  type Attempt,
  type UpstreamResponse,
  type Usage,
} from './upstream.js';

export interface Completed {
  readonly target: Target;
  /** The provider's usage, when it sent one. */
  readonly usage: Usage | undefined;
  /** Characters of answer text relayed to the client (streams; 0 for a whole answer). */
  readonly relayedChars: number;
  /** The client left, or read too slowly, before the answer was complete. */
  readonly cutShort: boolean;
}

/** A provider's own answer to a request it found faulty (400, 404, 422...), passed on as it came. */
interface ClientFault {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Tries each target in turn until one answers. A provider that cannot be reached, is silent, rate
 * limited, failing (5xx) or refuses our credentials is skipped for the next; a provider's verdict on
 * the request itself (other 4xx) is the answer. Writes the answer to `res`; throws the 429/502 when
 * every provider failed. Nothing is written once the client has gone.
 */
export async function completeOnce(
  targets: readonly Target[],
  body: Readonly<Record<string, unknown>>,
  res: ExpressResponse,
  signal: AbortSignal,
): Promise<Completed | undefined> {
  const attempts: Attempt[] = [];
  for (const target of targets) {
    if (signal.aborted) return undefined;
    const call = new UpstreamCall(target, signal);
    try {
      const response = await call.send(body, false);
      const answer = (await response.body.json().catch(() => undefined)) as unknown;
      call.finished();
      if (isSuccess(response.status)) {
        if (!Array.isArray((answer as { choices?: unknown } | undefined)?.choices)) {
          attempts.push({ ...call.where(), outcome: 'bad answer', status: response.status });
          continue;
        }
        res.status(200).json(answer);
        return { target, usage: usageOf(answer), relayedChars: 0, cutShort: false };
      }
      if (fallsBack(response.status)) {
        attempts.push(statusAttempt(call, response));
        continue;
      }
      passOn(res, { status: response.status, body: answer });
      return undefined;
    } catch (err) {
      if (signal.aborted) return undefined;
      attempts.push(call.failure(err));
    } finally {
      call.close();
    }
  }
  throw allFailed(attempts);
}

export interface StreamSettings {
  /** Longest wait for a client that reads nothing while the gateway has frames for it, in ms. */
  readonly stallMs: number;
}

/** One provider's part in a streamed request: an attempt to note before the next, or the end. */
type StreamOutcome = { readonly attempt: Attempt } | { readonly completed: Completed | undefined };

/**
 * The streamed form: the provider's chunks are relayed as they come. Until the first chunk has been
 * sent to the client, any failure (including an in-band error or a stream that breaks) moves on to
 * the next provider; after it, a failure is sent in-band as `data: {"error": ...}` and the stream
 * ends. Usage is always asked of the provider (for the usage records) and relayed only when the
 * client asked for it with `stream_options.include_usage`. A stream the client left, or read too
 * slowly, is cut short and reported with what was relayed.
 */
export async function completeStream(
  targets: readonly Target[],
  body: Readonly<Record<string, unknown>>,
  includeUsage: boolean,
  res: ExpressResponse,
  signal: AbortSignal,
  settings: StreamSettings,
): Promise<Completed | undefined> {
  const attempts: Attempt[] = [];
  const upstreamBody = { ...body, stream: true, stream_options: { include_usage: true } };
  for (const target of targets) {
    if (signal.aborted) return undefined;
    const client = new ClientStream(res, includeUsage, settings.stallMs, signal);
    const outcome = await streamFrom(target, upstreamBody, client, res, signal);
    if ('completed' in outcome) return outcome.completed;
    attempts.push(outcome.attempt);
  }
  throw allFailed(attempts);
}

/** Phase 1: one provider's answer: a status to fall back on or pass on, or a stream to relay. */
async function streamFrom(
  target: Target,
  body: Readonly<Record<string, unknown>>,
  client: ClientStream,
  res: ExpressResponse,
  signal: AbortSignal,
): Promise<StreamOutcome> {
  const call = new UpstreamCall(target, signal);
  let opened = false;
  try {
    const response = await call.send(body, true);
    if (!isSuccess(response.status)) {
      const answer = (await response.body.json().catch(() => undefined)) as unknown;
      call.finished();
      if (fallsBack(response.status)) return { attempt: statusAttempt(call, response) };
      passOn(res, { status: response.status, body: answer });
      return { completed: undefined };
    }
    opened = true;
    return await relay(call, response, client);
  } catch (err) {
    if (signal.aborted && !(err instanceof SlowReaderError)) {
      // The client left: charged for what was relayed once the provider had accepted the request.
      return { completed: opened ? completed(call, client, true) : undefined };
    }
    return streamBroke(call, client, err);
  } finally {
    call.close();
  }
}

/** Phase 2: the provider's events to the client, written once per read, until [DONE] or a failure. */
async function relay(
  call: UpstreamCall,
  response: UpstreamResponse,
  client: ClientStream,
): Promise<StreamOutcome> {
  for await (const event of serverSentEvents(response)) {
    call.touch();
    if (event === END_OF_READ) {
      // The provider is not read while the client's socket drains: that silence is ours, not its.
      call.pause();
      await client.flush();
      call.touch();
      continue;
    }
    if (event.data === '[DONE]') {
      call.finished();
      client.finish();
      return { completed: completed(call, client, false) };
    }
    const chunk = parseChunk(event.data);
    if (chunk === undefined || 'error' in chunk) {
      const message = chunk ? errorMessage(chunk) : 'the provider sent a chunk that is not JSON';
      if (!client.started) return { attempt: { ...call.where(), outcome: 'stream failed', message } };
      client.failInBand(chunk ?? streamError(message));
      return { completed: completed(call, client, false) };
    }
    client.add(chunk, event.data);
  }
  // The provider closed the stream without [DONE].
  if (!client.started) {
    return {
      attempt: { ...call.where(), outcome: 'stream failed', message: 'stream ended before any chunk' },
    };
  }
  client.failInBand(streamError('the provider ended the stream early'));
  return { completed: completed(call, client, false) };
}

/**
 * Phase 3, on a failure thrown while the client is still there: a client too slow to read is let go
 * (its connection closed, the provider call aborted); before the first chunk the next provider is
 * tried; after it the failure goes in-band.
 */
function streamBroke(call: UpstreamCall, client: ClientStream, err: unknown): StreamOutcome {
  if (err instanceof SlowReaderError) {
    client.abandon();
    return { completed: completed(call, client, true) };
  }
  if (!client.started) return { attempt: call.failure(err) };
  client.failInBand(
    streamError(call.timedOut ? 'the provider stopped sending' : 'the provider stream broke'),
  );
  return { completed: completed(call, client, false) };
}

function completed(call: UpstreamCall, client: ClientStream, cutShort: boolean): Completed {
  return { target: call.target, usage: client.usage, relayedChars: client.relayedChars, cutShort };
}

const END_OF_READ = Symbol('end of read');

/**
 * The events of a Server-Sent Events body, parsed by eventsource-parser as the chunks arrive, each
 * read's events followed by END_OF_READ.
 */
async function* serverSentEvents(
  response: UpstreamResponse,
): AsyncGenerator<EventSourceMessage | typeof END_OF_READ> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  // One decoder for the whole body: a character split across two chunks is decoded once whole.
  const decoder = new TextDecoder();
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* events.splice(0);
    yield END_OF_READ;
  }
}

function statusAttempt(call: UpstreamCall, response: UpstreamResponse): Attempt {
  const retryAfter = retryAfterSeconds(response.retryAfter);
  return {
    ...call.where(),
    outcome: 'status',
    status: response.status,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

function passOn(res: ExpressResponse, fault: ClientFault): void {
  const body = fault.body ?? {
    error: {
      message: `the provider answered ${fault.status}`,
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
  };
  res.status(fault.status).json(body);
}

const streamError = (message: string) => ({
  error: { message, type: 'server_error', param: null, code: 'upstream_stream_failed' },
});

function parseChunk(data: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(data) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function errorMessage(chunk: Record<string, unknown>): string {
  const message = (chunk.error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : 'the provider sent an error';
}
