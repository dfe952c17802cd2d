import type { Express } from 'express';
import { z } from 'zod';

import { bodyLimit, textField, type Limits } from '../http/fields.js';
import { jsonBody, parseBody } from '../http/parse-body.js';
import type { DetectText } from './detect-text.js';

export const detectBody = (limits: Limits) => z.strictObject({ text: textField(limits.maxTextChars) });

/** POST /detect: is the text a violation under the configured labels and threshold (internal). */
export function detectRoutes(
  app: Express,
  options: { readonly detect: DetectText; readonly limits: Limits },
): void {
  const schema = detectBody(options.limits);
  app.post('/detect', ...jsonBody(bodyLimit(options.limits)), async (req, res) => {
    const { text } = parseBody(schema, req.body);
    res.json(await options.detect.execute(text));
  });
}
