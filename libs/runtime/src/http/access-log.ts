import { pino } from 'pino';

import type { Logger } from '../logger.js';

/** The fields of an access-log line, in the order they are written. */
export interface AccessLine {
  readonly req_id: string;
  readonly correlation_id: string | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly remote: string | undefined;
  readonly status: number;
  readonly ms: number;
}

export type AccessLevel = 'info' | 'warn' | 'error';

/** Writes one access-log line at a level with a message. */
export type AccessLogWriter = (level: AccessLevel, line: AccessLine, msg: string) => void;

const {
  chindingsSym,
  endSym,
  formattersSym,
  hooksSym,
  lsCacheSym,
  messageKeySym,
  mixinSym,
  needsMetadataGsym,
  nestedKeySym,
  serializersSym,
  streamSym,
  stringifiersSym,
  timeSym,
  wildcardFirstSym,
} = pino.symbols;
/** Not in pino's types, but among its symbols: a child's message prefix. */
const { msgPrefixSym } = pino.symbols as unknown as Record<string, symbol | undefined>;

/** What `accessLogWriter` reads of a pino logger (its symbol-keyed state, `pino.symbols`). */
type PinoState = Record<symbol, unknown> & Logger;

/**
 * The access log of `logger`: the line pino writes for `logger[level](line, msg)`, byte for byte
 * (level, time, bindings, the mixin's fields, the line's fields, msg), built as one string instead of
 * pino's merge of the mixin into a copy of the fields and its per-key serialisation (most of the cost
 * of the line per request). A logger configured in a way this does not copy (hooks, a log formatter,
 * a nested key, a message prefix, a stream that wants metadata) is written through pino itself.
 */
export function accessLogWriter(logger: Logger): AccessLogWriter {
  const state = logger as PinoState;
  const stream = state[streamSym] as { write(line: string): void } & Record<symbol, unknown>;
  const hooks = state[hooksSym] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  const formatters = state[formattersSym] as { log?: unknown } | undefined;
  const plain =
    hooks?.logMethod === undefined &&
    hooks?.streamWrite === undefined &&
    formatters?.log === undefined &&
    !state[nestedKeySym] &&
    !(msgPrefixSym && state[msgPrefixSym]) &&
    state[messageKeySym] === 'msg' &&
    stream[needsMetadataGsym] !== true &&
    !touches(state[serializersSym]) &&
    !touches(state[stringifiersSym]);
  const viaPino: AccessLogWriter = (level, line, msg) => {
    logger[level](line, msg);
  };
  if (!plain) return viaPino;
  const mixin = state[mixinSym] as (() => Record<string, unknown>) | undefined;
  const time = state[timeSym] as () => string;
  const levels = state[lsCacheSym] as Record<number, string>;
  const end = state[endSym] as string;
  return (level, line, msg) => {
    const value = logger.levels.values[level] ?? Infinity;
    if (value < logger.levelVal) return;
    const mixed = mixin ? mixinFields(mixin()) : '';
    if (mixed === undefined) return viaPino(level, line, msg);
    stream.write(
      `${levels[value]}${time()}${state[chindingsSym] as string}${mixed}${fields(line)},"msg":${JSON.stringify(msg)}${end}`,
    );
  };
}

/** The line's fields as pino writes them (a field that is undefined is left out). */
function fields(line: AccessLine): string {
  let text = `,"req_id":${JSON.stringify(line.req_id)}`;
  if (line.correlation_id !== undefined) text += `,"correlation_id":${JSON.stringify(line.correlation_id)}`;
  if (line.method !== undefined) text += `,"method":${JSON.stringify(line.method)}`;
  if (line.url !== undefined) text += `,"url":${JSON.stringify(line.url)}`;
  if (line.remote !== undefined) text += `,"remote":${JSON.stringify(line.remote)}`;
  return `${text},"status":${line.status},"ms":${Number.isFinite(line.ms) ? line.ms : null}`;
}

const LINE_KEYS = new Set(['req_id', 'correlation_id', 'method', 'url', 'remote', 'status', 'ms', 'msg']);

/** Whether serialisers or redaction stringifiers (by key, or for every key) would change the line. */
const touches = (byKey: unknown): boolean =>
  typeof byKey === 'object' &&
  byKey !== null &&
  (wildcardFirstSym in byKey || Object.keys(byKey).some((key) => LINE_KEYS.has(key)));

/**
 * The mixin's fields as pino writes them ahead of the line's: string values only (the platform's
 * mixin gives trace and span ids); undefined when it gives something else, or a key of the line
 * (then pino writes the line).
 */
function mixinFields(mixed: Record<string, unknown>): string | undefined {
  let text = '';
  for (const key in mixed) {
    const value = mixed[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || LINE_KEYS.has(key)) return undefined;
    text += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return text;
}
