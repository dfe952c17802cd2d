/**
 * OpenAI-compatible chat-completions double (OpenAI, vLLM, Ollama's /v1): `GET /v1/models`,
 * `GET /v1/models/{id}` and `POST /v1/chat/completions`, plain or streamed as server-sent events, with
 * Bearer auth, OpenAI's `{"error":{message,type,param,code}}` bodies and validation messages, and faults
 * that hit before the answer (as in http-double) or in the middle of a stream.
 *
 * Deterministic answers, so tests can predict them:
 * - content = `${name}:` followed by the words of the last user message in reverse order, joined by single
 *   spaces (`Hello brave world` -> `up-a: world brave Hello`); `${name}:` alone when there is no user text.
 *   Reversing (rather than echoing) proves a caller shows the upstream's answer, not its own prompt.
 * - A token is a whitespace-separated word (`countTokens`). prompt_tokens counts the text of every message
 *   (string content, or the `text` of its text parts); completion_tokens counts the content of every choice,
 *   the `${name}:` prefix included.
 * - `max_completion_tokens` (or else `max_tokens`) keeps that many words of the content, prefix included, and
 *   then finish_reason is `length`; otherwise `stop`.
 * - A stream sends, per choice, `{role:"assistant",content:""}`, then one chunk per word (words after the first
 *   carry their leading space, so the deltas concatenate to the content), then an empty delta with the
 *   finish_reason; with `stream_options.include_usage` every chunk carries `usage: null` and one last chunk
 *   has `choices: []` and the usage; then `data: [DONE]`.
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  FaultQueue,
  listenOnFreePort,
  field,
  respondWith,
  type Fault,
  type FaultOptions,
  type HttpDouble,
  type RecordedRequest,
} from './http-double.js';

export interface OpenAiDoubleOptions {
  /** The one Bearer key the double accepts (default `sk-test-upstream`). */
  readonly apiKey?: string;
  /** Model ids it serves (default `['gpt-test-mini']`); others answer 404 `model_not_found`. */
  readonly models?: readonly string[];
  /** Label that starts every answer, to tell two upstreams apart (default `openai-double`). */
  readonly name?: string;
  /** Pause between stream chunks (default 0). */
  readonly chunkDelayMs?: number;
}

/**
 * A fault for streamed chat completions only: other requests pass it by, and a streamed request answered
 * with an error (bad key, invalid body) leaves it queued.
 */
export type StreamFault =
  /** After `afterChunks` content chunks, send `data: {"error":{...}}` and end the response without [DONE]. */
  | { readonly type: 'stream-error'; readonly afterChunks: number; readonly message?: string }
  /** After `afterChunks` content chunks (and a 20 ms grace, so they reach the client), destroy the socket. */
  | { readonly type: 'stream-cut'; readonly afterChunks: number };

export type OpenAiFault = Fault | StreamFault;

export interface OpenAiRecordedRequest extends RecordedRequest {
  /** The client went away (socket closed) before the double finished its answer. */
  readonly aborted: boolean;
  /** The double ended its answer (an in-band stream error included); false while hung, or when cut or aborted. */
  readonly finished: boolean;
}

export interface OpenAiDouble extends HttpDouble {
  /** Base URL including `/v1`, like `https://api.openai.com/v1`: pass it as the SDK's `baseURL`. */
  readonly url: string;
  readonly requests: OpenAiRecordedRequest[];
  /** Faults queue in order; `path` is the full request path, e.g. `/v1/chat/completions`. */
  fail(fault: OpenAiFault, options?: FaultOptions): void;
  /**
   * The first request since the last reset that its client aborted, waiting up to `timeoutMs`
   * (default 5000) for one; rejects when none was.
   */
  waitForAbort(timeoutMs?: number): Promise<OpenAiRecordedRequest>;
}

export interface OpenAiErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

export const openAiError = (
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): OpenAiErrorBody => ({ error: { message, type, param, code } });

const SERVER_ERROR_MESSAGE = 'The server had an error while processing your request. Sorry about that!';

/** Canned faults with OpenAI's status codes and error bodies. */
export const openAiFaults = {
  rateLimited: (retryAfterSeconds?: number) =>
    respondWith(
      429,
      openAiError(
        `Rate limit reached for requests. Please try again in ${retryAfterSeconds ?? 20}s.`,
        'requests',
        null,
        'rate_limit_exceeded',
      ),
      retryAfterSeconds,
    ),
  /** 429 that no retry cures: billing, not rate. */
  quotaExceeded: () =>
    respondWith(
      429,
      openAiError(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        null,
        'insufficient_quota',
      ),
    ),
  badRequest: (message: string, param: string | null = null) =>
    respondWith(400, openAiError(message, 'invalid_request_error', param)),
  contextLengthExceeded: () =>
    respondWith(
      400,
      openAiError(
        "This model's maximum context length is 128000 tokens. Please reduce the length of the messages.",
        'invalid_request_error',
        'messages',
        'context_length_exceeded',
      ),
    ),
  permissionDenied: () =>
    respondWith(
      403,
      openAiError('You are not allowed to sample from this model', 'invalid_request_error', null, null),
    ),
  serverError: () => respondWith(500, openAiError(SERVER_ERROR_MESSAGE, 'server_error')),
  overloaded: (retryAfterSeconds?: number) =>
    respondWith(
      503,
      openAiError('The engine is currently overloaded, please try again later.', 'server_error'),
      retryAfterSeconds,
    ),
  streamError: (afterChunks: number, message?: string): StreamFault => ({
    type: 'stream-error',
    afterChunks,
    message,
  }),
  streamCut: (afterChunks: number): StreamFault => ({ type: 'stream-cut', afterChunks }),
};

/** The double's token count: whitespace-separated words. */
export function countTokens(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** The content the double answers to `lastUserText` before any max_tokens truncation. */
export function expectedAnswer(name: string, lastUserText: string): string {
  return [`${name}:`, ...words(lastUserText).reverse()].join(' ');
}

const words = (text: string): string[] => (text.trim() === '' ? [] : text.trim().split(/\s+/));

interface MutableRecord extends OpenAiRecordedRequest {
  aborted: boolean;
  finished: boolean;
}

interface Step {
  readonly kind: 'role' | 'content' | 'finish' | 'usage';
  readonly payload: unknown;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

interface Completion {
  readonly model: string;
  readonly contents: readonly string[];
  readonly finishReason: 'stop' | 'length';
  readonly usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
const MODEL_CREATED = 1_700_000_000;
const CUT_GRACE_MS = 20;

/** What the double was started with, with the defaults filled in. */
interface Settings {
  readonly apiKey: string;
  readonly models: readonly string[];
  readonly name: string;
  readonly chunkDelayMs: number;
}

/** The double's state, shared by its request handling and its controls. */
interface DoubleState {
  readonly settings: Settings;
  readonly requests: MutableRecord[];
  readonly faults: FaultQueue<OpenAiFault>;
  abortWaiters: ((request: MutableRecord) => void)[];
  /** Responses the double itself cut: their close is not a client leaving. */
  readonly destroyedByDouble: WeakSet<ServerResponse>;
  /** Aborted on close, so no delay or chunk pause outlives the double. */
  readonly lifetime: AbortController;
}

export async function startOpenAiDouble(options: OpenAiDoubleOptions = {}): Promise<OpenAiDouble> {
  const state: DoubleState = {
    settings: {
      apiKey: options.apiKey ?? 'sk-test-upstream',
      models: options.models ?? ['gpt-test-mini'],
      name: options.name ?? 'openai-double',
      chunkDelayMs: options.chunkDelayMs ?? 0,
    },
    requests: [],
    faults: new FaultQueue<OpenAiFault>(),
    abortWaiters: [],
    destroyedByDouble: new WeakSet<ServerResponse>(),
    lifetime: new AbortController(),
  };
  const server = createServer((req, res) => {
    handle(state, req, res).catch((err: unknown) => {
      if (state.lifetime.signal.aborted || req.destroyed) return;
      console.error('openai double failed', err);
      if (!res.headersSent)
        send(res, { status: 500, body: openAiError(SERVER_ERROR_MESSAGE, 'server_error') });
      else res.destroy();
    });
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: state.requests,
    fail(fault, faultOptions = {}) {
      state.faults.add(fault, faultOptions);
    },
    reset() {
      state.requests.length = 0;
      state.faults.clear();
    },
    waitForAbort: (timeoutMs = 5000) => waitForAbort(state, timeoutMs),
    async close() {
      state.lifetime.abort();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

const pause = (state: DoubleState, ms: number) => sleep(ms, undefined, { signal: state.lifetime.signal });

/** One request: recorded, then answered by a queued fault or by the API's own answer. */
async function handle(state: DoubleState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Listening before the body is read, so a client that leaves at once is seen too.
  const seen: { entry?: MutableRecord } = {};
  res.once('close', () => {
    const byClient =
      !res.writableFinished && !state.destroyedByDouble.has(res) && !state.lifetime.signal.aborted;
    if (seen.entry && byClient) markAborted(state, seen.entry);
  });
  res.once('finish', () => {
    if (seen.entry) seen.entry.finished = true;
  });
  const entry = await record(req);
  seen.entry = entry;
  state.requests.push(entry);
  const streaming = entry.path === '/v1/chat/completions' && field(entry.body, 'stream') === true;
  // The first queued fault for this request; a stream fault stays queued until its stream starts.
  const pending = state.faults.find(entry.path, (fault) => streaming || !isStreamFault(fault));
  const fault = pending && !isStreamFault(pending.fault) ? pending.fault : undefined;
  if (pending && fault) pending.use();
  if (fault && (await answeredByFault(state, fault, entry, req, res))) return;
  if (res.destroyed) return;
  const answer = route(state.settings, entry);
  if (!('contents' in answer)) {
    send(res, answer);
    return;
  }
  if (streaming) {
    const includeUsage = field(field(entry.body, 'stream_options'), 'include_usage') === true;
    const streamFault = pending && isStreamFault(pending.fault) ? pending.fault : undefined;
    if (pending && streamFault) pending.use();
    await stream(state, res, streamSteps(answer, includeUsage), streamFault);
    return;
  }
  send(res, { status: 200, body: completionBody(answer) });
}

/** Plays a fault that is not a stream's; true when it took the request (a delay hands it on). */
async function answeredByFault(
  state: DoubleState,
  fault: Fault,
  entry: MutableRecord,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  if (fault.type === 'hang') return true;
  if (fault.type === 'destroy') {
    state.destroyedByDouble.add(res);
    req.socket.destroy();
    return true;
  }
  if (fault.type === 'delay') await pause(state, fault.ms);
  if (res.destroyed) return true;
  if (fault.type === 'respond') {
    const body = typeof fault.body === 'function' ? fault.body(entry) : fault.body;
    send(res, { status: fault.status, body, headers: fault.headers });
    return true;
  }
  return false;
}

function markAborted(state: DoubleState, entry: MutableRecord): void {
  entry.aborted = true;
  const waiters = state.abortWaiters;
  state.abortWaiters = [];
  for (const wake of waiters) wake(entry);
}

function waitForAbort(state: DoubleState, timeoutMs: number): Promise<OpenAiRecordedRequest> {
  const done = state.requests.find((r) => r.aborted);
  if (done) return Promise.resolve(done);
  return new Promise<OpenAiRecordedRequest>((resolve, reject) => {
    const timer = setTimeout(() => {
      state.abortWaiters = state.abortWaiters.filter((w) => w !== wake);
      reject(new Error(`no request to the OpenAI double was aborted within ${timeoutMs} ms`));
    }, timeoutMs);
    const wake = (request: MutableRecord) => {
      clearTimeout(timer);
      resolve(request);
    };
    state.abortWaiters.push(wake);
  });
}

function authError(apiKey: string, request: RecordedRequest): Answer | undefined {
  const header = request.headers.authorization;
  if (header === `Bearer ${apiKey}`) return undefined;
  const key = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
  const body =
    key === ''
      ? openAiError(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using " +
            'Bearer auth (i.e. Authorization: Bearer YOUR_KEY).',
          'invalid_request_error',
        )
      : openAiError(
          `Incorrect API key provided: ${maskKey(key)}. You can find your API key at ` +
            'https://platform.openai.com/account/api-keys.',
          'invalid_request_error',
          null,
          'invalid_api_key',
        );
  return { status: 401, body };
}

const modelObject = (id: string) => ({ id, object: 'model', created: MODEL_CREATED, owned_by: 'system' });

/** The API's own answer: the models, or a completion to send whole or stream. */
function route(settings: Settings, request: RecordedRequest): Answer | Completion {
  const denied = authError(settings.apiKey, request);
  if (denied) return denied;
  const { models } = settings;
  if (request.method === 'GET' && request.path === '/v1/models') {
    return { status: 200, body: { object: 'list', data: models.map(modelObject) } };
  }
  const modelId = /^\/v1\/models\/(.+)$/.exec(request.path)?.[1];
  if (request.method === 'GET' && modelId !== undefined) {
    const id = decodeURIComponent(modelId);
    return models.includes(id) ? { status: 200, body: modelObject(id) } : modelNotFound(id, 'model');
  }
  if (request.method === 'POST' && request.path === '/v1/chat/completions')
    return complete(settings, request);
  return {
    status: 404,
    body: openAiError(`Invalid URL (${request.method} ${request.path})`, 'invalid_request_error'),
  };
}

function complete(settings: Settings, request: RecordedRequest): Answer | Completion {
  const invalid = validate(request);
  if (invalid) return { status: 400, body: invalid };
  const body = request.body as Record<string, unknown>;
  const model = body.model as string;
  if (!settings.models.includes(model)) return modelNotFound(model, null);
  const messages = body.messages as Record<string, unknown>[];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const full = words(expectedAnswer(settings.name, lastUser ? messageText(lastUser) : ''));
  const limit = (body.max_completion_tokens ?? body.max_tokens) as number | null | undefined;
  const truncated = typeof limit === 'number' && full.length > limit;
  const content = (truncated ? full.slice(0, limit) : full).join(' ');
  const n = typeof body.n === 'number' ? body.n : 1;
  const promptTokens = messages.reduce((sum, m) => sum + countTokens(messageText(m)), 0);
  const completionTokens = countTokens(content) * n;
  return {
    model,
    contents: Array.from({ length: n }, () => content),
    finishReason: truncated ? 'length' : 'stop',
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** A whole (non-streamed) completion's body. */
const completionBody = (answer: Completion) => ({
  id: completionId(),
  object: 'chat.completion',
  created: Math.floor(Date.now() / 1000),
  model: answer.model,
  choices: answer.contents.map((content, index) => ({
    index,
    message: { role: 'assistant', content },
    finish_reason: answer.finishReason,
  })),
  usage: answer.usage,
});

/** A streamed completion's chunks: each choice's role, its words one by one, its finish, the usage. */
function streamSteps(completion: Completion, includeUsage: boolean): Step[] {
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: completion.model,
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const each = (kind: Step['kind'], choice: (index: number) => unknown): Step[] =>
    completion.contents.map((_, index) => ({ kind, payload: chunk([choice(index)]) }));
  const steps: Step[] = each('role', (index) => ({
    index,
    delta: { role: 'assistant', content: '' },
    finish_reason: null,
  }));
  const wordsPerChoice = completion.contents.map(words);
  const longest = Math.max(0, ...wordsPerChoice.map((w) => w.length));
  for (let position = 0; position < longest; position += 1) {
    wordsPerChoice.forEach((choiceWords, index) => {
      const word = choiceWords[position];
      if (word === undefined) return;
      const delta = { content: position === 0 ? word : ` ${word}` };
      steps.push({ kind: 'content', payload: chunk([{ index, delta, finish_reason: null }]) });
    });
  }
  steps.push(...each('finish', (index) => ({ index, delta: {}, finish_reason: completion.finishReason })));
  if (includeUsage) steps.push({ kind: 'usage', payload: chunk([], { usage: completion.usage }) });
  return steps;
}

/** Writes the steps as Server-Sent Events, playing the stream fault when its moment comes. */
async function stream(
  state: DoubleState,
  res: ServerResponse,
  steps: readonly Step[],
  fault: StreamFault | undefined,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': requestId(),
  });
  res.flushHeaders();
  let contentSent = 0;
  for (const [i, step] of steps.entries()) {
    if (i > 0 && state.settings.chunkDelayMs > 0) await pause(state, state.settings.chunkDelayMs);
    if (res.destroyed) return;
    // A fault fires once its content chunks are out, or at the latest before the first finish chunk.
    if (fault && step.kind !== 'role' && (step.kind !== 'content' || contentSent >= fault.afterChunks)) {
      await breakStream(state, res, fault);
      return;
    }
    res.write(sse(step.payload));
    if (step.kind === 'content') contentSent += 1;
  }
  res.end('data: [DONE]\n\n');
}

async function breakStream(state: DoubleState, res: ServerResponse, fault: StreamFault): Promise<void> {
  if (fault.type === 'stream-cut') {
    // Let the chunks already written reach the client first: a reader's queue is dropped on error.
    await new Promise((resolve) => res.write('', resolve));
    await pause(state, CUT_GRACE_MS);
    state.destroyedByDouble.add(res);
    res.socket?.destroy();
  } else {
    res.end(sse(openAiError(fault.message ?? SERVER_ERROR_MESSAGE, 'server_error')));
  }
}

/** OpenAI's 400 body for the first invalid field, or undefined when the request is valid. */
function validate(request: RecordedRequest): OpenAiErrorBody | undefined {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return openAiError(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP " +
        'library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)',
      'invalid_request_error',
    );
  }
  const b = body as Record<string, unknown>;
  if (b.model === undefined) return missing('model');
  if (typeof b.model !== 'string') return invalidType('model', 'a string', b.model);
  if (b.messages === undefined) return missing('messages');
  if (!Array.isArray(b.messages)) return invalidType('messages', 'an array', b.messages);
  if (b.messages.length === 0) {
    return openAiError(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'invalid_request_error',
      'messages',
      'empty_array',
    );
  }
  const invalidMessage = validateMessages(b.messages as unknown[]);
  if (invalidMessage) return invalidMessage;
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') {
    return invalidType('stream', 'a boolean', b.stream);
  }
  if (b.stream_options !== undefined && b.stream_options !== null && b.stream !== true) {
    return openAiError(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request_error',
      'stream_options',
    );
  }
  return validateNumbers(b);
}

/** The first invalid message, in OpenAI's order of checks. */
function validateMessages(messages: readonly unknown[]): OpenAiErrorBody | undefined {
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return invalidType(at, 'an object', message);
    }
    const { role, content } = message as Record<string, unknown>;
    if (role === undefined) return missing(`${at}.role`);
    if (typeof role !== 'string' || !ROLES.includes(role)) {
      return openAiError(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', ` +
          "'tool', and 'developer'.",
        'invalid_request_error',
        `${at}.role`,
        'invalid_value',
      );
    }
    if (content === undefined || content === null) {
      if (role !== 'assistant') return missing(`${at}.content`);
    } else if (typeof content !== 'string' && !Array.isArray(content)) {
      return invalidType(`${at}.content`, 'one of a string or array of objects', content);
    }
  }
  return undefined;
}

/** The integer and decimal parameters, each within OpenAI's range. */
function validateNumbers(b: Readonly<Record<string, unknown>>): OpenAiErrorBody | undefined {
  for (const [param, min, max] of [
    ['max_tokens', 1, Number.POSITIVE_INFINITY],
    ['max_completion_tokens', 1, Number.POSITIVE_INFINITY],
    ['n', 1, 128],
  ] as const) {
    const value = b[param];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value)) return invalidType(param, 'an integer', value);
    if (value < min) return outOfRange(param, 'integer', 'below minimum', `>= ${min}`, value);
    if (value > max) return outOfRange(param, 'integer', 'above maximum', `<= ${max}`, value);
  }
  if (b.temperature !== undefined && b.temperature !== null) {
    if (typeof b.temperature !== 'number') return invalidType('temperature', 'a decimal', b.temperature);
    if (b.temperature < 0)
      return outOfRange('temperature', 'decimal', 'below minimum', '>= 0', b.temperature);
    if (b.temperature > 2)
      return outOfRange('temperature', 'decimal', 'above maximum', '<= 2', b.temperature);
  }
  return undefined;
}

const missing = (param: string): OpenAiErrorBody =>
  openAiError(
    `Missing required parameter: '${param}'.`,
    'invalid_request_error',
    param,
    'missing_required_parameter',
  );

const invalidType = (param: string, expected: string, got: unknown): OpenAiErrorBody =>
  openAiError(
    `Invalid type for '${param}': expected ${expected}, but got ${describe(got)} instead.`,
    'invalid_request_error',
    param,
    'invalid_type',
  );

const outOfRange = (
  param: string,
  kind: 'integer' | 'decimal',
  side: 'below minimum' | 'above maximum',
  expected: string,
  got: number,
): OpenAiErrorBody =>
  openAiError(
    `Invalid '${param}': ${kind} ${side} value. Expected a value ${expected}, but got ${got} instead.`,
    'invalid_request_error',
    param,
    `${kind}_${side.replace(' ', '_').replace('minimum', 'min').replace('maximum', 'max')}_value`,
  );

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const modelNotFound = (model: string, param: string | null): Answer => ({
  status: 404,
  body: openAiError(
    `The model \`${model}\` does not exist or you do not have access to it.`,
    'invalid_request_error',
    param,
    'model_not_found',
  ),
});

/** A message's text: its string content, or the text of its text parts joined by spaces. */
function messageText(message: Record<string, unknown>): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (field(part, 'type') === 'text' ? field(part, 'text') : undefined))
    .filter((text): text is string => typeof text === 'string')
    .join(' ');
}

/** OpenAI shows short keys whole and masks the middle of longer ones. */
const maskKey = (key: string): string =>
  key.length <= 12 ? key : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;

const isStreamFault = (fault: OpenAiFault | undefined): fault is StreamFault =>
  fault?.type === 'stream-error' || fault?.type === 'stream-cut';

const completionId = () => `chatcmpl-${randomBytes(12).toString('base64url')}`;
const requestId = () => `req_${randomBytes(16).toString('hex')}`;
const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

function send(res: ServerResponse, answer: Answer): void {
  const isText = typeof answer.body === 'string';
  const payload = answer.body === undefined ? '' : isText ? String(answer.body) : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'x-request-id': requestId(),
    ...(answer.body === undefined
      ? {}
      : { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json' }),
    ...answer.headers,
  });
  res.end(payload);
}

async function record(req: IncomingMessage): Promise<MutableRecord> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const rawBody = raw.toString('utf8');
  const url = new URL(req.url ?? '/', 'http://double');
  let body: unknown;
  try {
    body = rawBody === '' ? undefined : (JSON.parse(rawBody) as unknown);
  } catch {
    body = undefined;
  }
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    rawBody,
    bodyBytes: raw.length,
    body,
    aborted: false,
    finished: false,
  };
}
