import type { Express } from 'express';
import { z } from 'zod';

import { labelField, labelList, templateField, type Limits } from '../http/fields.js';
import { jsonBody, parseBody } from '../http/parse-body.js';
import { configView } from './moderation-config.js';
import type { NliConfigStore } from './nli-config.store.js';

/**
 * Body of PUT /config: any of the fields, at least one; absent fields keep their value. Rules across
 * fields (safe labels among the candidates) are checked on the result, in the store.
 */
export const configBody = (limits: Limits) =>
  z
    .strictObject({
      candidate_labels: labelList(1, limits.maxLabels).optional(),
      safe_labels: z
        .array(labelField(), { error: 'must be an array of strings' })
        .max(limits.maxLabels, { error: `must list at most ${limits.maxLabels} labels` })
        .optional(),
      threshold: z
        .number({ error: 'must be a number' })
        .gt(0, { error: 'must be greater than 0' })
        .lte(1, { error: 'must be at most 1' })
        .optional(),
      hypothesis_template: templateField().optional(),
      enabled: z.boolean({ error: 'must be true or false' }).optional(),
    })
    .refine((body) => Object.keys(body).length > 0, {
      error: 'must change at least one field',
      // Only for an otherwise valid body: an unknown field alone already says what is wrong.
      when: (payload) => payload.issues.length === 0,
    });

/** GET and PUT /config: the moderation settings in nli_config (internal; the gateway guards the admin route). */
export function configRoutes(
  app: Express,
  options: { readonly store: NliConfigStore; readonly limits: Limits },
): void {
  const schema = configBody(options.limits);

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
