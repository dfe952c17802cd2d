import { createRequire } from 'node:module';

/** The parts of kafkajs's per-connection RequestQueue (src/network/requestQueue) the fix touches. */
interface RequestQueueState {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
}

interface RequestQueueClass {
  prototype: RequestQueueState & {
    scheduleCheckPendingRequests(this: RequestQueueState): void;
    idleLoopFixed?: boolean;
  };
}

/** kafkajs's own re-check interval while requests wait (its CHECK_PENDING_REQUESTS_INTERVAL). */
const RECHECK_MS = 10;

/**
 * When the queue's next pending-request check is due: in `RECHECK_MS` while requests wait and the
 * broker does not throttle, at the end of a throttle, or never (undefined) when nothing waits and
 * nothing is throttled: a request pushed later is sent at once or schedules its own check.
 */
export function pendingCheckDelay(pending: number, throttledUntil: number, now: number): number | undefined {
  const throttledFor = throttledUntil - now;
  if (pending > 0) return throttledFor > 0 ? throttledFor : RECHECK_MS;
  return throttledFor > 0 ? throttledFor : undefined;
}

/**
 * kafkajs 2.2.4 re-arms a timer after every pending-request check, even when nothing is pending
 * and nothing is throttled, with a delay of `-1 - Date.now()` (a negative number, which Node runs
 * as 1 ms: the TimeoutNegativeWarning the services silence). So every broker connection of every
 * client keeps a 1 ms timer loop alive from its first answer on: about 1,700 wake-ups a second in
 * an idle translator or worker (`perf trace -s`), each taking a core from whatever else runs
 * (tulios/kafkajs#1556, fix proposed in #1667 and #1768, unreleased). This replaces the method on
 * kafkajs's shared RequestQueue class with one that arms the timer only when a check is due
 * (pendingCheckDelay). Idempotent.
 */
export function fixRequestQueueIdleLoop(): void {
  const proto = requestQueuePrototype();
  // A kafkajs whose internals moved (a later release, perhaps with the fix) is left as it is.
  if (!proto || typeof proto.scheduleCheckPendingRequests !== 'function' || proto.idleLoopFixed) return;
  proto.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueState) {
    if (this.throttleCheckTimeoutId) return;
    const delay = pendingCheckDelay(this.pending.length, this.throttledUntil, Date.now());
    if (delay === undefined) return;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, delay);
  };
  proto.idleLoopFixed = true;
}

/** kafkajs's RequestQueue prototype, or undefined when this kafkajs has no such module. */
function requestQueuePrototype(): RequestQueueClass['prototype'] | undefined {
  try {
    const loaded = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as
      RequestQueueClass | undefined;
    return loaded?.prototype;
  } catch {
    return undefined;
  }
}
