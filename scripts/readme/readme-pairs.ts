// npm run readme:pairs [-- --check]
// Writes the README's table "what translates on the default set-up" from the live pair list of a
// running gateway (GATEWAY_URL, default http://127.0.0.1:3000: run it against a default `npm start`).
// With --check it writes nothing and exits 1 when the README's table differs from the live list.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { pairsTable, withPairsTable, type ServedPair } from './pairs-table.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:3000';
const check = process.argv.includes('--check');

const res = await fetch(new URL('/api/v1/translate/pairs', gateway));
if (!res.ok) {
  console.error(`readme:pairs: ${gateway}/api/v1/translate/pairs answered ${res.status}`);
  process.exit(1);
}
const { data } = (await res.json()) as { data: { pairs: ServedPair[] } };
const readme = await readFile(README, 'utf8');
const written = withPairsTable(readme, pairsTable(data.pairs));
if (check) {
  if (written !== readme) {
    console.error('readme:pairs: the README table differs from the live pair list; run npm run readme:pairs');
    const live = new Set(written.split('\n'));
    const readmeLines = new Set(readme.split('\n'));
    for (const line of readmeLines) if (!live.has(line)) console.error(`  README only: ${line}`);
    for (const line of live) if (!readmeLines.has(line)) console.error(`  live only:   ${line}`);
    process.exitCode = 1;
  }
} else if (written !== readme) {
  await writeFile(README, written);
  console.log(`readme:pairs: wrote ${data.pairs.length} pairs from ${gateway}`);
} else {
  console.log('readme:pairs: the README table is up to date');
}
