import { startService } from '@tp/platform';

import type { TranslatorConfig } from './config.js';

/**
 * Internal translation service (port 3004): hot cache in Redis, the engine chain, and the Kafka
 * consumer of translation requests; results leave through the Postgres outbox.
 */
export function startTranslator(config: TranslatorConfig) {
  return startService({
    name: 'translator',
    config,
    needs: { postgres: true, redis: true, kafka: true },
  });
}
