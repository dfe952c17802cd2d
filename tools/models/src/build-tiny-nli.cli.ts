/**
 * Builds the tiny NLI test model (see docs/models.md):
 *   npm run models:build-tiny-nli                          # into var/models/nli/tiny-nli
 *   npm run models:build-tiny-nli -- --out /tmp/models/nli/tiny-nli --token-type-ids
 * Skips the build when the folder already holds the same one. The nli service loads it only with
 * ALLOW_TEST_MODELS=true.
 */
import { resolve } from 'node:path';

import { Command, InvalidArgumentError } from 'commander';

import { buildTinyNliModel } from './tiny-nli/build-tiny-nli-model.js';

const tokenCount = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 8 || parsed > 4096) {
    throw new InvalidArgumentError('must be an integer from 8 to 4096');
  }
  return parsed;
};

const program = new Command('models:build-tiny-nli')
  .description('Build a tiny NLI-shaped ONNX test model whose logits follow a fixed keyword rule.')
  .option('--out <dir>', 'model folder', 'var/models/nli/tiny-nli')
  .option('--token-type-ids', 'add a token_type_ids input, as BERT exports have', false)
  .option('--max-length <tokens>', 'model_max_length, specials included', tokenCount, 128)
  .action(async (options: { out: string; tokenTypeIds: boolean; maxLength: number }) => {
    const outDir = resolve(options.out);
    const result = await buildTinyNliModel(outDir, {
      tokenTypeIds: options.tokenTypeIds,
      maxLength: options.maxLength,
    });
    console.log(
      result.skipped
        ? `up to date: ${outDir} (${result.hash.slice(0, 12)})`
        : `built ${outDir} (${result.hash.slice(0, 12)}): ${result.files.join(', ')}`,
    );
  });

program.parseAsync().catch((err: unknown) => {
  console.error(`models:build-tiny-nli failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
