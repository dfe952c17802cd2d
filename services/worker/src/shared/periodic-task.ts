import type { BackgroundTask } from '@tp/platform';

/**
 * Runs `run` at start and then every `intervalMs`, one run at a time (a tick while a run is under
 * way does nothing); stop waits for the run under way. `run` handles its own errors.
 */
export function periodicTask(intervalMs: number, run: () => Promise<void>): BackgroundTask {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= run().finally(() => {
      running = undefined;
    });
  };
  return {
    start: async () => {
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
