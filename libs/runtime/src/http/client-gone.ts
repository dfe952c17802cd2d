import type { ServerResponse } from 'node:http';

/** A signal aborted when the client goes away before the answer is sent. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Emitted once per response: `on`, not `once` (no wrapper to make and remove per request).
  res.on('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client went away'));
  });
  return controller.signal;
}
