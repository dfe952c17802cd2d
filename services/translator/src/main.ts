import { runService } from '@tp/runtime';

import { loadTranslatorConfig } from './config.js';
import { startTranslator } from './translator.js';

await runService('translator', () => startTranslator(loadTranslatorConfig()));
