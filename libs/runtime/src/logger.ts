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

/**
 * Log lines gathered and written together: one write of up to `maxChars` characters, at the latest
 * `maxDelayMs` after the first line, instead of one system call per line (a busy gateway writes an
 * access-log line per request). `flush` writes what is held at once.
 */
export class BatchedWriter {
  #parts: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: (text: string) => void,
    private readonly maxChars = 16_384,
    private readonly maxDelayMs = 50,
  ) {}

  write(line: string): void {
    this.#parts.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.maxChars) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.maxDelayMs).unref();
  }

  /** Writes what is held; `done` (pino's `logger.flush(cb)`) is called once it is written. */
  flush(done?: () => void): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#parts.length > 0) {
      const text = this.#parts.join('');
      this.#parts = [];
      this.#chars = 0;
      this.sink(text);
    }
    done?.();
  }
}

let stdout: BatchedWriter | undefined;

/**
 * One batched stdout for every logger of the process (so lines keep their order), written through
 * pino's synchronous destination (it retries when the pipe is full) and flushed when the process exits.
 */
function sharedStdout(): BatchedWriter {
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: true });
    const writer = new BatchedWriter((text) => destination.write(text));
    process.once('exit', () => {
      writer.flush();
    });
    stdout = writer;
  }
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
