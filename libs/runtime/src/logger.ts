import { pino, type Logger } from 'pino';

import { activeTraceIds } from './tracing.js';

export type { Logger } from 'pino';

/**
 * JSON logs on stdout, one object per line, with the service name on every line, and the active span's
 * `trace_id` and `span_id` on lines written inside one.
 */
export function createLogger(service: string, level: string = 'info'): Logger {
  return pino(
    {
      level,
      base: { service },
      mixin: activeTraceIds,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // API keys and credentials must never reach a log line.
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', '*.password'],
        censor: '[redacted]',
      },
    },
    sharedStdout(),
  );
}

let stdout: ReturnType<typeof pino.destination> | undefined;

/**
 * A write starts once this many bytes of lines wait (sonic-boom's `minLength`): a busy gateway writes
 * an access-log line per request, and a write per line was a syscall and a thread-pool round trip per
 * request (docs/benchmarks.md, bench:translate).
 */
const LOG_WRITE_MIN_BYTES = 2048;
/**
 * A write takes at most this many bytes (sonic-boom's `maxWrite`, 16 KiB by default). Lines waiting
 * are gathered in strings of at most this size, and sonic-boom measures the last one in bytes on
 * every line, copying it whole (docs/decisions.md).
 */
const LOG_WRITE_MAX_BYTES = 4096;
/** Lines that did not fill LOG_WRITE_MIN_BYTES are written at the latest this long after (`periodicFlush`). */
const LOG_FLUSH_MS = 200;

/**
 * One stdout for every logger of the process, so lines keep their order: pino's asynchronous
 * destination (sonic-boom), which gathers lines into writes of 2 to 4 KiB or every LOG_FLUSH_MS,
 * retries when the pipe is full, and writes what is left synchronously when the process exits.
 */
function sharedStdout() {
  stdout ??= pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_WRITE_MIN_BYTES,
    maxWrite: LOG_WRITE_MAX_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  return stdout;
}
