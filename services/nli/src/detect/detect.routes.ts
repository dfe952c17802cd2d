import { detectRequest, type NliLimits } from '@tp/service-contracts';
import type { Express } from 'express';

import { bodyLimit } from '../http/fields.js';
import { jsonBody, parseBody } from '../http/parse-body.js';
import type { DetectText } from './detect-text.js';

/** POST /detect: is the text a violation under the configured labels and threshold (internal). */
export function detectRoutes(
  app: Express,
  options: { readonly detect: DetectText; readonly limits: NliLimits },
): void {
  const schema = detectRequest(options.limits);
  app.post('/detect', ...jsonBody(bodyLimit(options.limits)), async (req, res) => {
    const { text } = parseBody(schema, req.body);
    res.json(await options.detect.execute(text));
  });
}
