/**
 * Downloads real models from the Hugging Face hub into var/models (see docs/models.md):
 *   npm run models:pull -- zh-en en-de      # Opus-MT pairs for the translator's offline engine
 *   npm run models:pull -- nli              # the NLI model for the nli service
 * Environment: HF_ENDPOINT (default https://huggingface.co), HF_TOKEN (optional bearer token).
 * Exits with 1 on any failure, after saying what went wrong.
 */
import { resolve } from 'node:path';

import { Command } from 'commander';

import type { DownloadProgress } from './download-file.js';
import { DEFAULT_NLI_REPO, hubModelFor } from './hub-model.js';
import { DEFAULT_HF_ENDPOINT, pullModel } from './pull-model.js';

const MB = 1024 * 1024;

/** One line per file at each tenth (or each 10 MB when the size is unknown): readable in CI logs too. */
function progressPrinter() {
  const printed = new Map<string, number>();
  return ({ file, received, total }: DownloadProgress) => {
    const step = total ? Math.floor((received / total) * 10) : Math.floor(received / (10 * MB));
    if (printed.get(file) === step) return;
    printed.set(file, step);
    const size = `${(received / MB).toFixed(1)}${total ? ` / ${(total / MB).toFixed(1)}` : ''} MB`;
    console.log(`  ${file}  ${size}${total ? `  ${step * 10}%` : ''}`);
  };
}

const program = new Command('models:pull')
  .description(
    'Download ONNX models: Opus-MT pairs (Xenova/opus-mt-<src>-<tgt>) for the offline engine, nli for the nli service.',
  )
  .argument('<names...>', 'nli, or language pairs in Opus-MT codes, e.g. zh-en en-de')
  .option('--dir <modelsDir>', 'models directory', 'var/models')
  .option(
    '--nli-repo <repo>',
    'hub repository of the NLI model (a mirror with the same files)',
    DEFAULT_NLI_REPO,
  )
  .option('--force', 'download again even when the model is already complete', false)
  .action(async (names: string[], options: { dir: string; nliRepo: string; force: boolean }) => {
    const endpoint = process.env.HF_ENDPOINT || DEFAULT_HF_ENDPOINT;
    const token = process.env.HF_TOKEN || undefined;
    const repoFor = (name: string) => (name.toLowerCase() === 'nli' ? options.nliRepo : undefined);
    // Refuse a bad name before downloading anything.
    for (const name of names) hubModelFor(name, repoFor(name));
    for (const name of names) {
      const repo = repoFor(name);
      console.log(`${name}: from ${endpoint}`);
      const result = await pullModel({
        name,
        modelsDir: resolve(options.dir),
        endpoint,
        force: options.force,
        onProgress: progressPrinter(),
        ...(repo && { repo }),
        ...(token && { token }),
      });
      console.log(
        result.skipped
          ? `${name}: already installed in ${result.dir}`
          : `${name}: installed ${result.repo} in ${result.dir} (${(result.bytes / MB).toFixed(1)} MB)`,
      );
    }
  });

program.parseAsync().catch((err: unknown) => {
  console.error(`models:pull failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
