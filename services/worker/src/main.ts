import { runService } from '@tp/runtime';

import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

await runService('worker', () => startWorker(loadWorkerConfig()));
