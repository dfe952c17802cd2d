/**
 * Downloads real Opus-MT models from the Hugging Face hub into var/models (see docs/models.md):
 *   npm run models:pull -- zh-en en-de
 * Environment: HF_ENDPOINT (default https://huggingface.co), HF_TOKEN (optional bearer token).
 * Exits with 1 on any failure, after saying what went wrong.
 */
import { resolve } from 'node:path';

import { Command } from 'commander';

import type { DownloadProgress } from './download-file.js';
import { hubModelFor } from './hub-model.js';
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
  .description('Download Opus-MT ONNX models (Xenova/opus-mt-<src>-<tgt>) for the offline engine.')
  .argument('<pairs...>', 'language pairs in Opus-MT codes, e.g. zh-en en-de (nli is reserved for later)')
  .option('--dir <modelsDir>', 'models directory', 'var/models')
  .option('--force', 'download again even when the model is already complete', false)
  .action(async (pairs: string[], options: { dir: string; force: boolean }) => {
    const endpoint = process.env.HF_ENDPOINT || DEFAULT_HF_ENDPOINT;
    const token = process.env.HF_TOKEN || undefined;
    // Refuse a bad or reserved name before downloading anything.
    pairs.forEach(hubModelFor);
    for (const pair of pairs) {
      console.log(`${pair}: from ${endpoint}`);
      const result = await pullModel({
        pair,
        modelsDir: resolve(options.dir),
        endpoint,
        force: options.force,
        onProgress: progressPrinter(),
        ...(token && { token }),
      });
      console.log(
        result.skipped
          ? `${pair}: already installed in ${result.dir}`
          : `${pair}: installed ${result.repo} in ${result.dir} (${(result.bytes / MB).toFixed(1)} MB)`,
      );
    }
  });

program.parseAsync().catch((err: unknown) => {
  console.error(`models:pull failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
