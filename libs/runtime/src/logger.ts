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
      timestamp: isoTime,
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
 * One stdout for every logger of the process, so lines keep their order: pino's asynchronous
 * destination (sonic-boom), which gathers the lines written while a write is in flight into the
 * next one, retries when the pipe is full, and writes what is left synchronously when the process
 * exits.
 */
function sharedStdout() {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}

let lastMs = 0;
let lastTime = '';

/** pino's `isoTime`, formatting each millisecond once: busy processes log many lines per millisecond. */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}
