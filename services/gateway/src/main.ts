import { runService } from '@tp/runtime';

import { loadGatewayConfig } from './config.js';
import { startGateway } from './gateway.js';

await runService('gateway', () => startGateway(loadGatewayConfig()));
