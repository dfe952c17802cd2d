import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';

import { PullError } from './pull-error.js';

export interface DownloadProgress {
  readonly file: string;
  readonly received: number;
  /** From Content-Length; undefined when the server does not say. */
  readonly total: number | undefined;
}

export interface DownloadOptions {
  /** Label for progress and errors (the file's path in the repository). */
  readonly label: string;
  readonly token?: string;
  readonly onProgress?: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal;
}

/**
 * Streams `url` to `dest` through `dest.part`, renamed only once complete, so `dest` is either absent
 * or whole. Follows redirects (the hub sends large files to its CDN; fetch drops the token on a
 * cross-origin redirect, which the CDN's signed URL does not need).
 */
export async function downloadFile(url: string, dest: string, options: DownloadOptions): Promise<number> {
  const { label, token, onProgress, signal } = options;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      redirect: 'follow',
      ...(signal && { signal }),
    });
  } catch (err) {
    throw new PullError(
      'network',
      `cannot reach ${new URL(url).origin} for ${label}: ${describeCause(err)}`,
      {
        cause: err,
      },
    );
  }
  if (!response.ok || !response.body) throw httpError(response, label);

  const total = Number(response.headers.get('content-length')) || undefined;
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      onProgress?.({ file: label, received, total });
      done(null, chunk);
    },
  });
  const partial = `${dest}.part`;
  await mkdir(dirname(dest), { recursive: true });
  try {
    await pipeline(
      Readable.fromWeb(response.body as ReadableStream<Uint8Array>),
      counter,
      createWriteStream(partial),
    );
    if (total !== undefined && received !== total) {
      throw new Error(`got ${received} of ${total} bytes`);
    }
  } catch (err) {
    await rm(partial, { force: true });
    throw new PullError('network', `download of ${label} broke off: ${describeCause(err)}`, { cause: err });
  }
  await rename(partial, dest);
  return received;
}

function httpError(response: Response, label: string): PullError {
  const status = `${response.status} ${response.statusText}`.trim();
  // The hub's own reason (RepoNotFound, EntryNotFound, GatedRepo) when it sends one.
  const reason = response.headers.get('x-error-code') ?? response.headers.get('x-error-message');
  const detail = reason ? `${status}, ${reason}` : status;
  if (response.status === 404) {
    return new PullError('not-found', `${label} is not on the hub (${detail})`);
  }
  if (response.status === 401 || response.status === 403) {
    return new PullError(
      'unauthorized',
      `the hub refused ${label} (${detail}): the repository may not exist, or it needs HF_TOKEN set to a token that can read it`,
    );
  }
  return new PullError('http', `the hub answered ${detail} for ${label}; try again later`);
}

function describeCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
