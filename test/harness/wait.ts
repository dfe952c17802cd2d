import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `condition` returns true; fails with `what` after `timeoutMs`. A condition that throws
 * counts as not yet (a broker that has just created a topic answers "not the leader" for a moment);
 * if it still throws at the deadline, that error is the failure's cause.
 */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let lastError: unknown;
    try {
      if (await condition()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
