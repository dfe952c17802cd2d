import { runService } from '@tp/runtime';

import { loadNliConfig } from './config.js';
import { startNli } from './nli.js';

await runService('nli', () => startNli(loadNliConfig()));
