import { httpHealthCheck, startService } from '@tp/platform';

import type { GatewayConfig } from './config.js';

/**
 * Public edge (port 3000). Needs Postgres (API keys, outbox of commands), Redis (rate limits, caches)
 * and Kafka (admin views such as consumer lag); reports the internal services it calls as optional.
 */
export function startGateway(config: GatewayConfig) {
  return startService({
    name: 'gateway',
    config,
    needs: { postgres: true, redis: true, kafka: true },
    extraChecks: [
      httpHealthCheck('translator', config.TRANSLATOR_URL),
      httpHealthCheck('nli', config.NLI_URL),
    ],
  });
}
