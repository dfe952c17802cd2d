/**
 * Why a pull failed, with a message meant for the person at the terminal:
 * - `bad-pair`: the argument is neither `nli` nor `<src>-<tgt>`;
 * - `bad-repo`: a repository override is not `owner/name`;
 * - `not-found`: the hub has no such repository or file (404);
 * - `unauthorized`: the hub wants a token, or a better one (401/403);
 * - `http`: any other HTTP failure (429, 5xx);
 * - `network`: the hub could not be reached, or the connection dropped mid-file.
 */
export type PullFailure = 'bad-pair' | 'bad-repo' | 'not-found' | 'unauthorized' | 'http' | 'network';

export class PullError extends Error {
  override readonly name = 'PullError';
  constructor(
    readonly kind: PullFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
