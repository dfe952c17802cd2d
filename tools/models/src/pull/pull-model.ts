import { access, mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import type { DownloadProgress } from './download-file.js';
import { downloadFile } from './download-file.js';
import { fileUrl, hubModelFor } from './hub-model.js';

export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';

export interface PullOptions {
  /** `zh-en` fetches Xenova/opus-mt-zh-en; `nli` fetches the NLI model (hub-model.ts). */
  readonly name: string;
  /** Another repository with the same files (a mirror or a fork), e.g. `Xenova/mDeBERTa-...`. */
  readonly repo?: string;
  /** Where model folders live; the model lands in `<modelsDir>/<folder>` (hub-model.ts). */
  readonly modelsDir: string;
  /** Hub base URL (HF_ENDPOINT); default https://huggingface.co. */
  readonly endpoint?: string;
  /** HF_TOKEN, sent as a bearer token when set. */
  readonly token?: string;
  /** Download again even when the model folder is complete. */
  readonly force?: boolean;
  readonly onProgress?: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal;
}

export interface PullResult {
  readonly dir: string;
  readonly repo: string;
  /** True when the folder was already complete and nothing was fetched. */
  readonly skipped: boolean;
  readonly bytes: number;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Downloads one model into `<modelsDir>/<folder>` (`opus-mt-zh-en`, `nli/mdeberta-...`). Files gather
 * in a hidden staging folder beside it (`.opus-mt-zh-en.partial`, which the engine ignores) and the
 * folder is renamed into place when all are there, so no loader sees half a model. Files finished by
 * an interrupted run are kept and not fetched again.
 */
export async function pullModel(options: PullOptions): Promise<PullResult> {
  const model = hubModelFor(options.name, options.repo);
  const dir = join(options.modelsDir, model.folder);
  const complete = async (folder: string) =>
    (await Promise.all(model.files.map((file) => exists(join(folder, file))))).every(Boolean);
  if (!options.force && (await complete(dir))) return { dir, repo: model.repo, skipped: true, bytes: 0 };

  const staging = join(dirname(dir), `.${basename(dir)}.partial`);
  if (options.force) await rm(staging, { recursive: true, force: true });
  const endpoint = options.endpoint ?? DEFAULT_HF_ENDPOINT;
  let bytes = 0;
  for (const file of model.files) {
    const dest = join(staging, file);
    if (await exists(dest)) continue;
    bytes += await downloadFile(fileUrl(endpoint, model.repo, file), dest, {
      label: `${model.repo}/${file}`,
      ...(options.token && { token: options.token }),
      ...(options.onProgress && { onProgress: options.onProgress }),
      ...(options.signal && { signal: options.signal }),
    });
  }
  await moveIntoPlace(staging, dir, model.files);
  return { dir, repo: model.repo, skipped: false, bytes };
}

/** A new folder is renamed whole; into an existing one (say, with extra files) ours are moved one by one. */
async function moveIntoPlace(staging: string, dir: string, files: readonly string[]): Promise<void> {
  if (!(await exists(dir))) {
    await rename(staging, dir);
    return;
  }
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await rename(join(staging, file), join(dir, file));
  }
  await rm(staging, { recursive: true, force: true });
}
