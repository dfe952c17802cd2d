import type { Express } from 'express';
import { z } from 'zod';

import type { NliConfigStore } from '../config/nli-config.store.js';
import { bodyLimit, labelList, templateField, textField, type Limits } from '../http/fields.js';
import { jsonBody, parseBody } from '../http/parse-body.js';
import type { ClassifyText } from './classify-text.js';

/** Body of POST /classify; unknown fields are refused, so a typo (`multilabel`) is not silently ignored. */
export const classifyBody = (limits: Limits) =>
  z.strictObject({
    text: textField(limits.maxTextChars),
    candidate_labels: labelList(1, limits.maxLabels),
    multi_label: z.boolean({ error: 'must be true or false' }).default(false),
    /** Default: the configured template (nli_config), so a test here matches what /detect sees. */
    hypothesis_template: templateField().optional(),
  });

export interface ClassifyRoutesOptions {
  readonly classify: ClassifyText;
  readonly store: NliConfigStore;
  readonly limits: Limits;
}

/** POST /classify: zero-shot classification of a text against candidate labels (internal). */
export function classifyRoutes(app: Express, { classify, store, limits }: ClassifyRoutesOptions): void {
  const schema = classifyBody(limits);
  app.post('/classify', ...jsonBody(bodyLimit(limits)), async (req, res) => {
    const body = parseBody(schema, req.body);
    const template = body.hypothesis_template ?? (await store.current()).hypothesisTemplate;
    const { result, cached, model } = await classify.execute({
      text: body.text,
      labels: body.candidate_labels,
      multiLabel: body.multi_label,
      template,
    });
    res.json({ ...result, model, cached });
  });
}
