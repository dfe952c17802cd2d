import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { startHubDouble, type HubDouble, type HubRepo } from '@tp/test/doubles/hf-hub';
import { DEFAULT_NLI_REPO, MODEL_FILES, NLI_MODEL_FILES } from './hub-model.js';
import { PullError } from './pull-error.js';
import { pullModel } from './pull-model.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const run = promisify(execFile);

/** A repository with every file the pull needs; the onnx ones are bigger so progress has steps. */
function opusRepo(pair: string, extra: Partial<HubRepo> = {}): HubRepo {
  const files: Record<string, string | Uint8Array> = {};
  for (const file of MODEL_FILES) {
    files[file] = file.endsWith('.onnx')
      ? new Uint8Array(64 * 1024).map((_, i) => (i * 7 + file.length) % 251)
      : JSON.stringify({ file, pair });
  }
  return { files, ...extra };
}

/** The NLI repository's files, with an id2label that does not put entailment first. */
function nliRepo(): HubRepo {
  const files: Record<string, string | Uint8Array> = {};
  for (const file of NLI_MODEL_FILES) {
    files[file] = file.endsWith('.onnx')
      ? new Uint8Array(32 * 1024).map((_, i) => (i * 13) % 251)
      : JSON.stringify({ file, id2label: { 0: 'entailment', 1: 'neutral', 2: 'contradiction' } });
  }
  return { files };
}

async function failure(promise: Promise<unknown>): Promise<PullError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof PullError) return err;
    throw err;
  }
  throw new Error('expected the pull to fail');
}

/** Every file under a folder, recursively, relative to it. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('pullModel against a double of the hub', () => {
  let hub: HubDouble | undefined;
  let modelsDir: string;

  beforeEach(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'tp-pull-'));
  });

  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await rm(modelsDir, { recursive: true, force: true });
  });

  it('downloads every model file of Xenova/opus-mt-<pair> into var/models/opus-mt-<pair>', async () => {
    const repo = opusRepo('zh-en');
    hub = await startHubDouble({ repos: { 'Xenova/opus-mt-zh-en': repo } });
    const progress: string[] = [];
    const result = await pullModel({
      name: 'zh-en',
      modelsDir,
      endpoint: hub.url,
      onProgress: ({ file, received, total }) => progress.push(`${file} ${received}/${total}`),
    });
    expect(result).toMatchObject({
      dir: join(modelsDir, 'opus-mt-zh-en'),
      repo: 'Xenova/opus-mt-zh-en',
      skipped: false,
    });
    for (const file of MODEL_FILES) {
      const bytes = await readFile(join(modelsDir, 'opus-mt-zh-en', file));
      expect(Buffer.compare(bytes, Buffer.from(repo.files[file] as string | Uint8Array))).toBe(0);
    }
    expect(await listFiles(modelsDir)).toEqual(MODEL_FILES.map((file) => `opus-mt-zh-en/${file}`).sort());
    // The onnx files went through the CDN redirect, as on the real hub.
    expect(hub.requests.map((request) => request.path)).toContain(
      '/cdn/Xenova/opus-mt-zh-en/onnx/encoder_model_quantized.onnx',
    );
    expect(progress).toContain(
      `Xenova/opus-mt-zh-en/onnx/encoder_model_quantized.onnx ${64 * 1024}/${64 * 1024}`,
    );
  });

  it('skips a model that is already complete, and downloads again with force', async () => {
    hub = await startHubDouble({ repos: { 'Xenova/opus-mt-en-de': opusRepo('en-de') } });
    await pullModel({ name: 'en-de', modelsDir, endpoint: hub.url });
    const requestsAfterFirst = hub.requests.length;
    expect(await pullModel({ name: 'en-de', modelsDir, endpoint: hub.url })).toMatchObject({ skipped: true });
    expect(hub.requests.length).toBe(requestsAfterFirst);
    expect(await pullModel({ name: 'en-de', modelsDir, endpoint: hub.url, force: true })).toMatchObject({
      skipped: false,
    });
    expect(hub.requests.length).toBeGreaterThan(requestsAfterFirst);
  });

  it('fails with not-found on a 404 and installs nothing', async () => {
    const repo = opusRepo('zh-en');
    const { 'onnx/decoder_model_merged_quantized.onnx': _missing, ...files } = repo.files;
    hub = await startHubDouble({ repos: { 'Xenova/opus-mt-zh-en': { files } } });
    const err = await failure(pullModel({ name: 'zh-en', modelsDir, endpoint: hub.url }));
    expect(err.kind).toBe('not-found');
    expect(err.message).toContain('Xenova/opus-mt-zh-en/onnx/decoder_model_merged_quantized.onnx');
    expect(err.message).toContain('404');
    await expect(stat(join(modelsDir, 'opus-mt-zh-en'))).rejects.toThrow(/ENOENT/);
    expect((await listFiles(modelsDir)).filter((file) => file.endsWith('.part'))).toEqual([]);
  });

  it('fails with not-found for a repository that does not exist, when a token is sent', async () => {
    hub = await startHubDouble({ repos: {} });
    const err = await failure(pullModel({ name: 'xx-yy', modelsDir, endpoint: hub.url, token: 'hf_test' }));
    expect(err.kind).toBe('not-found');
    expect(err.message).toContain('RepoNotFound');
  });

  it('fails with unauthorized on a 401 and names HF_TOKEN', async () => {
    hub = await startHubDouble({
      repos: { 'Xenova/opus-mt-zh-en': opusRepo('zh-en', { token: 'hf_right' }) },
    });
    const err = await failure(pullModel({ name: 'zh-en', modelsDir, endpoint: hub.url }));
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toContain('HF_TOKEN');
    expect(err.message).toContain('401');
  });

  it('sends HF_TOKEN as a bearer token', async () => {
    hub = await startHubDouble({
      repos: { 'Xenova/opus-mt-zh-en': opusRepo('zh-en', { token: 'hf_right' }) },
    });
    await pullModel({ name: 'zh-en', modelsDir, endpoint: hub.url, token: 'hf_right' });
    const resolveRequests = hub.requests.filter((request) => request.path.includes('/resolve/'));
    expect(resolveRequests.map((request) => request.authorization)).toEqual(
      MODEL_FILES.map(() => 'Bearer hf_right'),
    );
  });

  it('fails with network when the connection drops mid-file, leaving no half file, and resumes later', async () => {
    const repo = opusRepo('zh-en');
    const broken = 'Xenova/opus-mt-zh-en/onnx/encoder_model_quantized.onnx';
    hub = await startHubDouble({ repos: { 'Xenova/opus-mt-zh-en': repo }, breakOff: [broken] });
    const err = await failure(pullModel({ name: 'zh-en', modelsDir, endpoint: hub.url }));
    expect(err.kind).toBe('network');
    expect(err.message).toContain('onnx/encoder_model_quantized.onnx');
    const leftovers = await listFiles(modelsDir);
    expect(leftovers.some((file) => file.includes('encoder_model_quantized'))).toBe(false);
    await expect(stat(join(modelsDir, 'opus-mt-zh-en'))).rejects.toThrow(/ENOENT/);

    await hub.close();
    hub = await startHubDouble({ repos: { 'Xenova/opus-mt-zh-en': repo } });
    await pullModel({ name: 'zh-en', modelsDir, endpoint: hub.url });
    // The files finished before the break are not fetched again.
    expect(hub.requests.map((request) => request.path).filter((path) => path.includes('/resolve/'))).toEqual([
      '/Xenova/opus-mt-zh-en/resolve/main/onnx/encoder_model_quantized.onnx',
      '/Xenova/opus-mt-zh-en/resolve/main/onnx/decoder_model_merged_quantized.onnx',
    ]);
    expect(await listFiles(modelsDir)).toEqual(MODEL_FILES.map((file) => `opus-mt-zh-en/${file}`).sort());
  });

  it('fails with network when the hub cannot be reached', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const err = await failure(
      pullModel({ name: 'zh-en', modelsDir, endpoint: `http://127.0.0.1:${closedPort}` }),
    );
    expect(err.kind).toBe('network');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('refuses a malformed pair or repository without a request', async () => {
    hub = await startHubDouble({ repos: {} });
    expect((await failure(pullModel({ name: 'zh_en', modelsDir, endpoint: hub.url }))).kind).toBe('bad-pair');
    const repo = await failure(pullModel({ name: 'nli', repo: 'no-owner', modelsDir, endpoint: hub.url }));
    expect(repo.kind).toBe('bad-repo');
    for (const climbing of ['../..', 'owner/..', '../name', '/etc/passwd', './x']) {
      const err = await failure(pullModel({ name: 'nli', repo: climbing, modelsDir, endpoint: hub.url }));
      expect(err.kind).toBe('bad-repo');
    }
    expect(hub.requests).toEqual([]);
  });
});

describe('pullModel nli', () => {
  let hub: HubDouble | undefined;
  let modelsDir: string;

  beforeEach(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'tp-pull-nli-'));
  });

  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await rm(modelsDir, { recursive: true, force: true });
  });

  const folder = 'nli/mdeberta-v3-base-xnli-multilingual-nli-2mil7';

  it('downloads the q8 mDeBERTa export, config and tokenizer into var/models/nli/<name>', async () => {
    const repo = nliRepo();
    hub = await startHubDouble({ repos: { [DEFAULT_NLI_REPO]: repo } });
    const result = await pullModel({ name: 'nli', modelsDir, endpoint: hub.url });
    expect(result).toMatchObject({ dir: join(modelsDir, folder), repo: DEFAULT_NLI_REPO, skipped: false });
    expect(await listFiles(modelsDir)).toEqual(NLI_MODEL_FILES.map((file) => `${folder}/${file}`).sort());
    for (const file of NLI_MODEL_FILES) {
      const bytes = await readFile(join(modelsDir, folder, file));
      expect(Buffer.compare(bytes, Buffer.from(repo.files[file] as string | Uint8Array))).toBe(0);
    }
    expect(hub.requests.map((request) => request.path)).toContain(
      `/${DEFAULT_NLI_REPO}/resolve/main/onnx/model_quantized.onnx`,
    );
  });

  it('takes the same files from another repository, into the same folder', async () => {
    hub = await startHubDouble({
      repos: { 'Xenova/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7': nliRepo() },
    });
    const result = await pullModel({
      name: 'nli',
      repo: 'Xenova/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7',
      modelsDir,
      endpoint: hub.url,
    });
    expect(result.dir).toBe(join(modelsDir, folder));
    expect(await pullModel({ name: 'nli', modelsDir, endpoint: hub.url })).toMatchObject({ skipped: true });
  });

  it('fails with not-found when the repository has no ONNX export, and installs nothing', async () => {
    const { 'onnx/model_quantized.onnx': _missing, ...files } = nliRepo().files;
    hub = await startHubDouble({ repos: { [DEFAULT_NLI_REPO]: { files } } });
    const err = await failure(pullModel({ name: 'nli', modelsDir, endpoint: hub.url }));
    expect(err.kind).toBe('not-found');
    expect(err.message).toContain(`${DEFAULT_NLI_REPO}/onnx/model_quantized.onnx`);
    expect((await listFiles(modelsDir)).filter((file) => !file.includes('.partial/'))).toEqual([]);
  });
});

describe('models:pull CLI', () => {
  let hub: HubDouble;
  let modelsDir: string;

  beforeEach(async () => {
    modelsDir = await mkdtemp(join(tmpdir(), 'tp-pull-cli-'));
    hub = await startHubDouble({
      repos: {
        'Xenova/opus-mt-en-de': opusRepo('en-de'),
        'Xenova/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7': nliRepo(),
      },
    });
  });

  afterEach(async () => {
    await hub.close();
    await rm(modelsDir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) =>
    run(
      join(REPO_ROOT, 'node_modules/.bin/tsx'),
      [
        '--conditions=@tp/source',
        join(REPO_ROOT, 'tools/models/src/pull/pull.cli.ts'),
        '--dir',
        modelsDir,
        ...args,
      ],
      { env: { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: '' } },
    );

  it('installs a pair, printing progress, and exits 0', async () => {
    const { stdout } = await cli('en-de');
    expect(stdout).toContain('onnx/encoder_model_quantized.onnx');
    expect(stdout).toContain('100%');
    expect(stdout).toContain(`installed Xenova/opus-mt-en-de in ${join(modelsDir, 'opus-mt-en-de')}`);
  });

  it('exits 1 with the reason on a missing model', async () => {
    const err = (await cli('zh-en').then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stderr: string } | undefined;
    expect(err?.code).toBe(1);
    expect(err?.stderr).toContain('models:pull failed');
    expect(err?.stderr).toContain('Xenova/opus-mt-zh-en');
  });

  it('installs the NLI model from the repository given with --nli-repo', async () => {
    const { stdout } = await cli('nli', '--nli-repo', 'Xenova/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7');
    expect(stdout).toContain('onnx/model_quantized.onnx');
    expect(stdout).toContain(
      `installed Xenova/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7 in ${join(modelsDir, 'nli/mdeberta-v3-base-xnli-multilingual-nli-2mil7')}`,
    );
  });
});
