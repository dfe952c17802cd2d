import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { parseModelFolderName, pickOnnxFiles, type LanguagePair, type OnnxFiles } from './model-folder.js';

export interface InstalledModel extends LanguagePair {
  /** Folder name, e.g. `opus-mt-zh-en-tiny`. */
  readonly name: string;
  readonly dir: string;
  readonly files: OnnxFiles;
  /** config.json carries our test-model marker: a toy lexicon model, not a real translator. */
  readonly testModel: boolean;
}

/** Reason a folder under the models directory was not taken, for the start-up log. */
export interface SkippedFolder {
  readonly name: string;
  readonly reason: string;
}

export interface Discovery {
  /** Real models before test models, then by folder name: the first one of a pair is used. */
  readonly models: readonly InstalledModel[];
  readonly skipped: readonly SkippedFolder[];
}

export interface DiscoveryOptions {
  /**
   * Take models marked as test models (ALLOW_TEST_MODELS, for tests): otherwise they are
   * skipped, so a toy lexicon is never offered as a translator.
   */
  readonly allowTestModels?: boolean;
}

/**
 * Finds the models installed in `modelsDir`: every `opus-mt-<src>-<tgt>*` folder with config.json,
 * tokenizer.json and an encoder and decoder under onnx/, a test model only when allowed. A missing
 * directory means no models. Dot-folders (downloads in progress) are ignored.
 */
export async function discoverModels(modelsDir: string, options: DiscoveryOptions = {}): Promise<Discovery> {
  const entries = await readdir(modelsDir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const models: InstalledModel[] = [];
  const skipped: SkippedFolder[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const pair = parseModelFolderName(entry.name);
    if (!pair) {
      skipped.push({ name: entry.name, reason: 'name is not opus-mt-<source>-<target>' });
      continue;
    }
    const dir = join(modelsDir, entry.name);
    const found = await inspectFolder(dir);
    if (typeof found === 'string') skipped.push({ name: entry.name, reason: found });
    else if (found.testModel && options.allowTestModels !== true) {
      skipped.push({ name: entry.name, reason: TEST_MODEL_REFUSED });
    } else models.push({ name: entry.name, dir, ...pair, ...found });
  }
  models.sort((a, b) => Number(a.testModel) - Number(b.testModel) || a.name.localeCompare(b.name));
  return { models, skipped };
}

/** Why a test model is not taken. */
export const TEST_MODEL_REFUSED =
  'a test model (a toy lexicon for tests, not a translator): set ALLOW_TEST_MODELS=true to load it; real models: npm run models:pull -- <pair>';

/** The folder's files and marker, or why it cannot be used. */
async function inspectFolder(dir: string): Promise<{ files: OnnxFiles; testModel: boolean } | string> {
  const names = await readdir(dir);
  if (!names.includes('tokenizer.json')) return 'tokenizer.json is missing';
  let config: unknown;
  try {
    config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
  } catch (err) {
    return `config.json is missing or not JSON (${(err as Error).message})`;
  }
  const files = pickOnnxFiles(await readdir(join(dir, 'onnx')).catch(() => []));
  if (!files) return 'onnx/ lacks an encoder or a decoder model';
  return { files, testModel: (config as Record<string, unknown> | null)?._tp_test_model === true };
}
