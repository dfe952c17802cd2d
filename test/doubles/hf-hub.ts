/**
 * A local double of the Hugging Face hub's file URLs, `GET /{owner}/{name}/resolve/{revision}/{path}`,
 * with the hub's quirks (reported by huggingface_hub's error handling):
 * - a repository that does not exist answers 401 without a token and 404 with one (X-Error-Code
 *   RepoNotFound), so a 401 may mean "no such repo";
 * - a missing file in an existing repository answers 404 (X-Error-Code EntryNotFound);
 * - a gated or private repository answers 401 without a valid token;
 * - large (LFS) files answer 302 to a CDN URL, here `/cdn/...` on the same server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HubRepo {
  /** File contents by path inside the repository. */
  readonly files: Readonly<Record<string, string | Uint8Array>>;
  /** Requests must carry `Authorization: Bearer <token>` (a gated repo). */
  readonly token?: string;
}

export interface HubDoubleOptions {
  /** Repositories by `owner/name`. */
  readonly repos: Readonly<Record<string, HubRepo>>;
  /** Paths (`owner/name/path`) whose body stops halfway with the connection destroyed. */
  readonly breakOff?: readonly string[];
}

export interface HubRequest {
  readonly path: string;
  readonly authorization: string | undefined;
}

export interface HubDouble {
  /** Base URL to use as HF_ENDPOINT. */
  readonly url: string;
  readonly requests: HubRequest[];
  close(): Promise<void>;
}

const LFS_SUFFIXES = ['.onnx', '.bin', '.safetensors'];

export async function startHubDouble(options: HubDoubleOptions): Promise<HubDouble> {
  const requests: HubRequest[] = [];

  function fail(res: ServerResponse, status: number, code: string, message: string) {
    res.writeHead(status, {
      'content-type': 'application/json',
      'x-error-code': code,
      'x-error-message': message,
    });
    res.end(JSON.stringify({ error: message }));
  }

  function send(res: ServerResponse, key: string, body: string | Uint8Array) {
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length });
    if (options.breakOff?.includes(key)) {
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
      return;
    }
    res.end(bytes);
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://hub').pathname);
    requests.push({ path, authorization: req.headers.authorization });
    const cdn = /^\/cdn\/([^/]+\/[^/]+)\/(.+)$/.exec(path);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path);
    const [, repoName, file] = cdn ?? resolve ?? [];
    if (!repoName || !file) return fail(res, 404, 'NotFound', 'not a hub file URL');
    const repo = options.repos[repoName];
    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    if (!repo) {
      return bearer
        ? fail(res, 404, 'RepoNotFound', 'Repository not found')
        : fail(res, 401, 'RepoNotFound', 'Repository not found');
    }
    if (repo.token && bearer !== repo.token && !cdn) {
      return fail(res, 401, 'GatedRepo', 'Access to this repository is restricted');
    }
    const body = repo.files[file];
    if (body === undefined) return fail(res, 404, 'EntryNotFound', 'Entry not found');
    if (!cdn && LFS_SUFFIXES.some((suffix) => file.endsWith(suffix))) {
      res.writeHead(302, { location: `/cdn/${repoName}/${file}` });
      return res.end();
    }
    send(res, `${repoName}/${file}`, body);
  }

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
