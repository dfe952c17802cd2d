import { configUpdate, type NliLimits } from '@tp/service-contracts';
import type { Express } from 'express';

import { jsonBody, parseBody } from '../http/parse-body.js';
import { configView } from './moderation-config.js';
import type { NliConfigStore } from './nli-config.store.js';

/** GET and PUT /config: the moderation settings in nli_config (internal; the gateway guards the admin route). */
export function configRoutes(
  app: Express,
  options: { readonly store: NliConfigStore; readonly limits: NliLimits },
): void {
  const schema = configUpdate(options.limits);

  app.get('/config', async (_req, res) => {
    res.json(configView(await options.store.current()));
  });

  app.put('/config', ...jsonBody(64 * 1024), async (req, res) => {
    const body = parseBody(schema, req.body);
    const updated = await options.store.update({
      ...(body.candidate_labels && { candidateLabels: body.candidate_labels }),
      ...(body.safe_labels && { safeLabels: body.safe_labels }),
      ...(body.threshold !== undefined && { threshold: body.threshold }),
      ...(body.hypothesis_template !== undefined && { hypothesisTemplate: body.hypothesis_template }),
      ...(body.enabled !== undefined && { enabled: body.enabled }),
    });
    res.json(configView(updated));
  });
}
