import type { ServerResponse } from 'node:http';

/** A signal aborted when the client goes away before the answer is sent. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client went away'));
  });
  return controller.signal;
}
