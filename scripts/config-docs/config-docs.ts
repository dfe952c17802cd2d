// npm run config:docs [-- --check]
// Writes docs/configuration.md from the typed settings of every program (configurationDoc); with
// --check it writes nothing and exits 1 when the file differs.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { configurationDoc } from './configuration-doc.js';
import { serviceSettings, toolSettings } from './settings-sources.js';

const FILE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const written = configurationDoc(serviceSettings, toolSettings);
const current = await readFile(FILE, 'utf8').catch(() => '');
if (process.argv.includes('--check')) {
  if (current !== written) {
    console.error('config:docs: docs/configuration.md differs from the settings; run npm run config:docs');
    process.exitCode = 1;
  }
} else if (current !== written) {
  await writeFile(FILE, written);
  console.log('config:docs: wrote docs/configuration.md');
} else {
  console.log('config:docs: docs/configuration.md is up to date');
}
