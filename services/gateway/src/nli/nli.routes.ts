import { AppError, codePointString, requestId } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import type { NliClient } from './nli-client.js';

// The nli service owns the limits (text length, label count...) and answers 400 VALIDATION_FAILED
// with details, passed through as is; the gateway checks the shape of requests. The document states
// the length limits (code points, as the nli service counts them: services/nli/src/http/fields.ts).

/** The nli service's limits on a label and a template (MAX_LABEL_CHARS, MAX_TEMPLATE_CHARS there). */
const NLI_MAX_LABEL_CHARS = 100;
const NLI_MAX_TEMPLATE_CHARS = 200;

export interface NliRouteLimits {
  /** NLI_MAX_TEXT_CHARS, as the nli service is configured. */
  readonly maxTextChars: number;
}

const nliText = (limits: NliRouteLimits) => codePointString(limits.maxTextChars, { check: false }).min(1);
const nliLabel = () => codePointString(NLI_MAX_LABEL_CHARS, { check: false });
const nliTemplate = () => codePointString(NLI_MAX_TEMPLATE_CHARS, { check: false });

export const detectionSchema = z
  .object({
    is_safe: z.boolean(),
    risk_level: z.enum(['none', 'low', 'medium', 'high']).meta({
      description:
        'none/low: no violation (low = the top unsafe score is at least half the threshold); medium/high: violation.',
    }),
    label: z.string().meta({ description: 'Top label.' }),
    score: z.number(),
    labels: z.array(z.string()),
    scores: z.array(z.number()),
    threshold: z.number(),
    model: z.string(),
    cached: z.boolean(),
  })
  .meta({ id: 'NliDetection' });

export const classificationSchema = z
  .object({
    sequence: z.string(),
    labels: z.array(z.string()),
    scores: z.array(z.number()),
    model: z.string(),
    cached: z.boolean(),
  })
  .meta({ id: 'NliClassification' });

export const nliConfigSchema = z
  .object({
    candidate_labels: z.array(z.string()),
    safe_labels: z.array(z.string()),
    threshold: z.number().meta({ description: 'nli.violation_threshold' }),
    hypothesis_template: z.string(),
    enabled: z.boolean(),
    revision: z.int(),
    updated_at: z.string(),
  })
  .meta({ id: 'NliConfig' });

const nliStatusSchema = z
  .object({
    online: z.boolean().meta({ description: 'The nli service answered.' }),
    model_ready: z.boolean(),
    model_id: z.string().nullable(),
    test_model: z.boolean(),
    model_error: z.string().optional(),
    candidate_labels: z.array(z.string()),
    safe_labels: z.array(z.string()),
    threshold: z.number().nullable(),
    enabled: z.boolean().nullable(),
    cache: z.object({ hits: z.number(), misses: z.number() }).nullable(),
    error: z.string().optional(),
  })
  .meta({ id: 'NliStatus' });

const NLI_ERRORS = ['NLI_UNAVAILABLE', 'NLI_MODEL_NOT_READY'] as const;

const MODERATE_NLI_PATH = '/api/v1/moderate/nli';
/** The body of POST /api/v1/moderate/nli. */
const moderateNliBody = z.strictObject({ text: z.string().min(1) });

export function nliRoutes(nli: NliClient, limits: NliRouteLimits) {
  return [
    moderateNliRoute(nli, limits),
    testNliRoute(nli, limits),
    nliStatusRoute(nli),
    readNliConfigRoute(nli),
    writeNliConfigRoute(nli),
  ];
}

const moderateNliRoute = (nli: NliClient, limits: NliRouteLimits) =>
  defineRoute({
    method: 'post',
    path: MODERATE_NLI_PATH,
    summary: 'Semantic risk check (zero-shot NLI)',
    description:
      'Classifies the text against the configured candidate labels. A violation: top score >= threshold and the top label is not a safe label. When NLI is disabled the answer is 409 NLI_DISABLED, never "safe".',
    tags: ['moderation'],
    access: 'client',
    request: { body: moderateNliBody.extend({ text: nliText(limits) }) },
    response: { status: 200, description: 'The verdict.', schema: detectionSchema },
    errors: [...NLI_ERRORS, 'NLI_DISABLED'],
    handler: ({ body, req, signal }) =>
      nli.detect<z.input<typeof detectionSchema>>(body.text, requestId(req), signal),
  });

const testNliRoute = (nli: NliClient, limits: NliRouteLimits) =>
  defineRoute({
    method: 'post',
    path: '/api/admin/nli/test',
    summary: 'Test a classification',
    tags: ['admin: nli'],
    access: 'admin',
    request: {
      body: z.strictObject({
        text: nliText(limits),
        candidate_labels: z.array(nliLabel().min(1)).min(1),
        multi_label: z.boolean().optional(),
        hypothesis_template: nliTemplate().optional(),
      }),
    },
    response: { status: 200, description: 'Labels sorted by score.', schema: classificationSchema },
    errors: [...NLI_ERRORS],
    handler: ({ body, req, signal }) =>
      nli.classify<z.input<typeof classificationSchema>>(body, requestId(req), signal),
  });

const nliStatusRoute = (nli: NliClient) =>
  defineRoute({
    method: 'get',
    path: '/api/admin/nli/status',
    summary: 'NLI service status',
    description:
      'Online state, model readiness and id, candidate labels, cache figures. Answers (online: false) when nli is down.',
    tags: ['admin: nli'],
    access: 'admin',
    response: { status: 200, description: 'The status.', schema: nliStatusSchema },
    handler: async ({ req }) => {
      try {
        const status = await nli.status<Omit<z.input<typeof nliStatusSchema>, 'online'>>(requestId(req));
        return { online: true, ...status };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return {
          online: false,
          model_ready: false,
          model_id: null,
          test_model: false,
          candidate_labels: [],
          safe_labels: [],
          threshold: null,
          enabled: null,
          cache: null,
          error: err.message,
        };
      }
    },
  });

const readNliConfigRoute = (nli: NliClient) =>
  defineRoute({
    method: 'get',
    path: '/api/admin/nli/config',
    summary: 'Read the NLI configuration',
    tags: ['admin: nli'],
    access: 'admin',
    response: { status: 200, description: 'The configuration.', schema: nliConfigSchema },
    errors: ['NLI_UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE'],
    handler: ({ req }) => nli.config<z.input<typeof nliConfigSchema>>(requestId(req)),
  });

const writeNliConfigRoute = (nli: NliClient) =>
  defineRoute({
    method: 'put',
    path: '/api/admin/nli/config',
    summary: 'Update the NLI configuration',
    description:
      'Partial update of candidate labels, safe labels, threshold, template and enabled state; applied by every process on its next call (within about a second).',
    tags: ['admin: nli'],
    access: 'admin',
    request: {
      body: z.strictObject({
        candidate_labels: z.array(nliLabel()).optional(),
        safe_labels: z.array(nliLabel()).optional(),
        threshold: z.number().optional(),
        hypothesis_template: nliTemplate().optional(),
        enabled: z.boolean().optional(),
      }),
    },
    response: { status: 200, description: 'The configuration after the update.', schema: nliConfigSchema },
    errors: ['NLI_UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE'],
    handler: ({ body, req }) => nli.updateConfig<z.input<typeof nliConfigSchema>>(body, requestId(req)),
  });
