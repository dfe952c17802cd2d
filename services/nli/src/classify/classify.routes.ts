import { classifyRequest, type classification, type NliLimits } from '@tp/service-contracts';
import type { Express } from 'express';
import type { z } from 'zod';

import type { NliConfigStore } from '../config/nli-config.store.js';
import { bodyLimit } from '../http/fields.js';
import { jsonBody, parseBody } from '../http/parse-body.js';
import type { ClassifyText } from './classify-text.js';

export interface ClassifyRoutesOptions {
  readonly classify: ClassifyText;
  readonly store: NliConfigStore;
  readonly limits: NliLimits;
}

/** POST /classify: zero-shot classification of a text against candidate labels (internal). */
export function classifyRoutes(app: Express, { classify, store, limits }: ClassifyRoutesOptions): void {
  const schema = classifyRequest(limits);
  app.post('/classify', ...jsonBody(bodyLimit(limits)), async (req, res) => {
    const body = parseBody(schema, req.body);
    const template = body.hypothesis_template ?? (await store.current()).hypothesisTemplate;
    const { result, cached, model } = await classify.execute({
      text: body.text,
      labels: body.candidate_labels,
      multiLabel: body.multi_label,
      template,
    });
    const answer: z.input<typeof classification> = { ...result, model, cached };
    res.json(answer);
  });
}
