import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** JSON logs on stdout, one object per line, with the service name on every line. */
export function createLogger(service: string, level: string = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // API keys and credentials must never reach a log line.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]', '*.password'],
      censor: '[redacted]',
    },
  });
}
