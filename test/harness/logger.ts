import { createLogger, type Logger } from '@tp/runtime';

/** Logs nothing unless TEST_LOG_LEVEL is set (e.g. TEST_LOG_LEVEL=debug npm test). */
export function silentLogger(): Logger {
  return createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** A logger that records the level of each line it is given (not of its children's), and logs nothing. */
export function capturingLogger(): { readonly logger: Logger; levels(): string[] } {
  const seen: string[] = [];
  const logger = createLogger('test', 'silent');
  for (const level of LEVELS) {
    logger[level] = (() => void seen.push(level)) as unknown as Logger[typeof level];
  }
  return { logger, levels: () => [...seen] };
}
