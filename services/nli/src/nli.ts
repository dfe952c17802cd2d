import { startService } from '@tp/platform';

import type { NliConfig } from './config.js';

/**
 * Internal NLI classification service (port 3005): ONNX model, result cache in Redis, configuration
 * in Postgres. It neither produces nor consumes Kafka messages, so Kafka is not one of its dependencies.
 */
export function startNli(config: NliConfig) {
  return startService({
    name: 'nli',
    config,
    needs: { postgres: true, redis: true },
  });
}
