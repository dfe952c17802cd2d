/**
 * Builds a tiny lexicon test model (see docs/models.md):
 *   npm run models:build-tiny                         # zh-en into var/models/opus-mt-zh-en-tiny
 *   npm run models:build-tiny -- --lexicon en-de --decoder merged --out /tmp/models/opus-mt-en-de-tiny
 * Skips the build when the folder already holds the same one.
 */
import { resolve } from 'node:path';

import { Command, Option } from 'commander';

import { buildTinyModel } from './tiny-marian/build-tiny-model.js';
import { LEXICONS } from './tiny-marian/lexicon.js';

const program = new Command('models:build-tiny')
  .description('Build a tiny Opus-MT-shaped ONNX test model that translates a fixed word list.')
  .addOption(
    new Option('--lexicon <pair>', 'built-in word list').choices(Object.keys(LEXICONS)).default('zh-en'),
  )
  .addOption(
    new Option('--decoder <layout>', 'decoder_model.onnx or Optimum merged with a cache')
      .choices(['plain', 'merged'])
      .default('plain'),
  )
  .option('--out <dir>', 'model folder (default var/models/opus-mt-<lexicon>-tiny)')
  .action(async (options: { lexicon: string; decoder: 'plain' | 'merged'; out?: string }) => {
    const outDir = resolve(options.out ?? `var/models/opus-mt-${options.lexicon}-tiny`);
    const result = await buildTinyModel(outDir, {
      lexicon: LEXICONS[options.lexicon],
      decoder: options.decoder,
    });
    console.log(
      result.skipped
        ? `up to date: ${outDir} (${result.hash.slice(0, 12)})`
        : `built ${outDir} (${result.hash.slice(0, 12)}): ${result.files.join(', ')}`,
    );
  });

program.parseAsync().catch((err: unknown) => {
  console.error(`models:build-tiny failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
