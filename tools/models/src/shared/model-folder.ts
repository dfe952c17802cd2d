import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Written last, so its presence means the rest of the build is complete. */
export const STAMP_FILE = '.tp-build-hash';

/** sha256 over the sorted paths and contents: the build's identity. */
export function filesHash(files: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash('sha256');
  for (const path of [...files.keys()].sort()) {
    hash.update(`${path}\0`);
    hash.update(files.get(path) as Uint8Array);
    hash.update('\0');
  }
  return hash.digest('hex');
}

export interface BuildResult {
  readonly outDir: string;
  readonly hash: string;
  /** True when the folder already held this exact build and nothing was written. */
  readonly skipped: boolean;
  readonly files: readonly string[];
}

/**
 * Writes a built model's files into `outDir` (created if needed). Skips writing when the folder's
 * stamp already names this build and its files are all there. Each file is written to a temporary
 * name and renamed, so a reader never sees half a file. `stale` lists paths an earlier build of
 * another layout may have left, which a loader would otherwise pick up.
 */
export async function writeModelFolder(
  outDir: string,
  files: ReadonlyMap<string, Uint8Array>,
  stale: readonly string[] = [],
): Promise<BuildResult> {
  const hash = filesHash(files);
  const paths = [...files.keys()];
  if (await isUpToDate(outDir, hash, paths)) return { outDir, hash, skipped: true, files: paths };
  // No stamp while writing: an interrupted build is rebuilt next time, never trusted.
  await rm(join(outDir, STAMP_FILE), { force: true });
  for (const path of stale.filter((path) => !files.has(path))) {
    await rm(join(outDir, path), { force: true });
  }
  for (const [path, bytes] of files) await writeAtomically(join(outDir, path), bytes);
  await writeAtomically(join(outDir, STAMP_FILE), new TextEncoder().encode(`${hash}\n`));
  return { outDir, hash, skipped: false, files: paths };
}

/** A JSON file as the hub stores them: two-space indent and a final newline. */
export const jsonFile = (value: object): Uint8Array =>
  new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

async function isUpToDate(outDir: string, hash: string, paths: readonly string[]): Promise<boolean> {
  const stamp = await readFile(join(outDir, STAMP_FILE), 'utf8').catch(() => '');
  if (stamp.trim() !== hash) return false;
  const present = await Promise.all(
    paths.map((path) =>
      stat(join(outDir, path)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return present.every(Boolean);
}

async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}
