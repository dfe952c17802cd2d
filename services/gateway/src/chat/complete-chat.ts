import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Response as ExpressResponse } from 'express';

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
  readonly usage: Usage | undefined;
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
        return { target, usage: usageOf(answer) };
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

/**
 * The streamed form: the provider's chunks are relayed as they come. Until the first chunk has been
 * sent to the client, any failure (including an in-band error or a stream that breaks) moves on to
 * the next provider; after it, a failure is sent in-band as `data: {"error": ...}` and the stream
 * ends. Usage is always asked of the provider (for the usage records) and relayed only when the
 * client asked for it with `stream_options.include_usage`.
 */
export async function completeStream(
  targets: readonly Target[],
  body: Readonly<Record<string, unknown>>,
  includeUsage: boolean,
  res: ExpressResponse,
  signal: AbortSignal,
): Promise<Completed | undefined> {
  const attempts: Attempt[] = [];
  const upstreamBody = { ...body, stream: true, stream_options: { include_usage: true } };
  for (const target of targets) {
    if (signal.aborted) return undefined;
    const call = new UpstreamCall(target, signal);
    let started = false;
    let abandoned = false;
    let usage: Usage | undefined;
    const held: string[] = [];
    try {
      const response = await call.send(upstreamBody, true);
      if (!isSuccess(response.status)) {
        const answer = (await response.body.json().catch(() => undefined)) as unknown;
        call.finished();
        if (fallsBack(response.status)) {
          attempts.push(statusAttempt(call, response));
          continue;
        }
        passOn(res, { status: response.status, body: answer });
        return undefined;
      }
      // Frames for the client, written once per read from the provider rather than one by one.
      let out = '';
      for await (const event of serverSentEvents(response)) {
        call.touch();
        if (event === END_OF_READ) {
          if (started && out !== '') res.write(out);
          out = '';
          continue;
        }
        if (event.data === '[DONE]') {
          call.finished();
          if (!started) startStream(res);
          res.end(`${started ? '' : held.join('')}${out}data: [DONE]\n\n`);
          return { target, usage };
        }
        const chunk = parseChunk(event.data);
        if (chunk === undefined || 'error' in chunk) {
          const message = chunk ? errorMessage(chunk) : 'the provider sent a chunk that is not JSON';
          if (!started) {
            attempts.push({ ...call.where(), outcome: 'stream failed', message });
            abandoned = true;
            break;
          }
          if (out !== '') res.write(out);
          endInBand(res, chunk ?? streamError(message));
          return { target, usage };
        }
        usage = usageOf(chunk) ?? usage;
        const usageOnly = Array.isArray(chunk.choices) && chunk.choices.length === 0 && usageOf(chunk);
        if (!includeUsage && usageOnly) continue;
        // Relayed as sent, unless the usage the client did not ask for has to come out.
        const strip = !includeUsage && 'usage' in chunk;
        if (strip) delete chunk.usage;
        const frame = `data: ${strip ? JSON.stringify(chunk) : event.data}\n\n`;
        if (!started && !substantive(chunk)) {
          // The opening `{role: "assistant"}` chunk is held back with nothing else: a provider that
          // fails before its first token can still be replaced without the client seeing it.
          held.push(frame);
          continue;
        }
        if (!started) {
          startStream(res);
          started = true;
          out = held.join('');
        }
        out += frame;
      }
      if (abandoned) continue;
      // The provider closed the stream without [DONE].
      if (!started) {
        attempts.push({
          ...call.where(),
          outcome: 'stream failed',
          message: 'stream ended before any chunk',
        });
        continue;
      }
      endInBand(res, streamError('the provider ended the stream early'));
      return { target, usage };
    } catch (err) {
      if (signal.aborted) return undefined;
      if (!started) {
        attempts.push(call.failure(err));
        continue;
      }
      endInBand(
        res,
        streamError(call.timedOut ? 'the provider stopped sending' : 'the provider stream broke'),
      );
      return { target, usage };
    } finally {
      call.close();
    }
  }
  throw allFailed(attempts);
}

/** A chunk the client must see before a fallback is no longer possible: content, a tool call, an end. */
function substantive(chunk: Record<string, unknown>): boolean {
  if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return true;
  return (chunk.choices as { delta?: Record<string, unknown>; finish_reason?: unknown }[]).some((choice) => {
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) return true;
    const delta = choice.delta ?? {};
    return Object.entries(delta).some(([name, value]) => name !== 'role' && value !== '' && value !== null);
  });
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

function startStream(res: ExpressResponse): void {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  // Proxies such as nginx must not hold chunks back.
  res.setHeader('x-accel-buffering', 'no');
}

function endInBand(res: ExpressResponse, error: object): void {
  if (!res.headersSent) startStream(res);
  res.end(`data: ${JSON.stringify(error)}\n\n`);
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
