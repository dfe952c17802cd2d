import { AppError, codePointString, requestId } from '@tp/runtime';
import {
  classification,
  detection,
  MAX_LABEL_CHARS,
  MAX_TEMPLATE_CHARS,
  nliConfig,
  nliStatus,
} from '@tp/service-contracts';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import type { NliClient } from './nli-client.js';

// The nli service owns the limits (text length, label count...) and answers 400 VALIDATION_FAILED
// with details, passed through as is; the gateway checks the shape of requests. The document states
// the length limits (code points, as the nli service counts them: services/nli/src/http/fields.ts).

export interface NliRouteLimits {
  /** NLI_MAX_TEXT_CHARS, as the nli service is configured. */
  readonly maxTextChars: number;
}

const nliText = (limits: NliRouteLimits) => codePointString(limits.maxTextChars, { check: false }).min(1);
const nliLabel = () => codePointString(MAX_LABEL_CHARS, { check: false });
const nliTemplate = () => codePointString(MAX_TEMPLATE_CHARS, { check: false });

/** The nli service's status, or `online: false` (then the figures it would give are null). */
const nliStatusSchema = z
  .strictObject({
    online: z.boolean().meta({ description: 'The nli service answered.' }),
    ...nliStatus.shape,
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
    response: { status: 200, description: 'The verdict.', schema: detection },
    errors: [...NLI_ERRORS, 'NLI_DISABLED'],
    handler: ({ body, req, signal }) => nli.detect(body.text, requestId(req), signal),
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
    response: { status: 200, description: 'Labels sorted by score.', schema: classification },
    errors: [...NLI_ERRORS],
    handler: ({ body, req, signal }) => nli.classify(body, requestId(req), signal),
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
        const status = await nli.status(requestId(req));
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
    response: { status: 200, description: 'The configuration.', schema: nliConfig },
    errors: ['NLI_UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE'],
    handler: ({ req }) => nli.config(requestId(req)),
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
    response: { status: 200, description: 'The configuration after the update.', schema: nliConfig },
    errors: ['NLI_UNAVAILABLE', 'DEPENDENCY_UNAVAILABLE'],
    handler: ({ body, req }) => nli.updateConfig(body, requestId(req)),
  });
