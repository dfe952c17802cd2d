import { createLogger, type Logger } from '@tp/runtime';

/** Logs nothing unless TEST_LOG_LEVEL is set (e.g. TEST_LOG_LEVEL=debug npm test). */
export function silentLogger(): Logger {
  return createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
}
