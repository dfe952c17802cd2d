import closeWithGrace from 'close-with-grace';

import { ConfigError } from './config.js';
import type { Logger } from './logger.js';
import { shutdownTracing } from './tracing.js';

/** What a started service hands back: its logger and how to stop it, in order. */
export interface RunningService {
  readonly logger: Logger;
  stop(): Promise<void>;
}

/**
 * Runs a service's start function. A bad setting or an unreachable dependency at start ends the process
 * with exit code 1 and one line on stderr naming the setting. Once started, SIGTERM/SIGINT (and any
 * uncaught error) trigger a graceful stop, bounded by `shutdownDelayMs`.
 */
export async function runService(
  service: string,
  start: () => Promise<RunningService>,
  shutdownDelayMs = 10_000,
): Promise<void> {
  let running: RunningService;
  try {
    running = await start();
  } catch (err) {
    const message =
      err instanceof ConfigError
        ? `configuration error: ${err.message}`
        : `failed to start: ${err instanceof Error ? err.message : String(err)}`;
    console.error(`[${service}] ${message}`);
    process.exit(1);
  }
  const { logger } = running;
  closeWithGrace({ delay: shutdownDelayMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'stopping after an unexpected error');
    else logger.info({ signal }, 'stopping');
    await running.stop();
    await shutdownTracing();
    logger.info('stopped');
  });
}
