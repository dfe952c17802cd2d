import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Called between slices of the wait, so the consumer group keeps the member (kafkajs heartbeat). */
  readonly heartbeat: () => Promise<void>;
  /** False once the wait should end early (the partition was taken away, the consumer stops). */
  readonly keepWaiting: () => boolean;
  /** Aborting ends the wait at once (stop()). */
  readonly signal: AbortSignal;
  /** Longest single sleep; shorter than the group's heartbeat interval. */
  readonly sliceMs?: number;
  readonly now?: () => number;
}

/**
 * Sleeps until `dueAt` (epoch ms) in slices, sending a heartbeat after each. Resolves true when the
 * time has come, false when the wait was cut short: then the message must not be handled now.
 */
export async function waitUntilDue(dueAt: number, options: WaitOptions): Promise<boolean> {
  const { heartbeat, keepWaiting, signal, sliceMs = 1000, now = Date.now } = options;
  for (;;) {
    if (signal.aborted || !keepWaiting()) return false;
    const remaining = dueAt - now();
    if (remaining <= 0) return true;
    try {
      await sleep(Math.min(remaining, sliceMs), undefined, { signal });
    } catch {
      return false;
    }
    await heartbeat();
  }
}
