import { codePoints } from '@tp/runtime';
import { z } from 'zod';

// The nli service's internal HTTP API, as the gateway calls it. Objects are strict: a field one side
// sends and the other does not know fails the parse. Requests are checked against the nli service's
// settings (NLI_MAX_TEXT_CHARS, NLI_MAX_LABELS), so their schemas take them.

/** Request limits from the nli service's settings. */
export interface NliLimits {
  readonly maxTextChars: number;
  readonly maxLabels: number;
}

export const MAX_LABEL_CHARS = 100;
/** The nli_config column is varchar(200). */
export const MAX_TEMPLATE_CHARS = 200;

/** A non-blank string of at most `max` characters (code points: a Chinese or emoji text is not counted double). */
function boundedText(max: number) {
  return z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
    if (value.trim() === '') {
      ctx.addIssue({
        code: 'too_small',
        origin: 'string',
        minimum: 1,
        inclusive: true,
        message: 'must not be empty',
        input: value,
      });
    }
    const chars = codePoints(value);
    if (chars > max) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: max,
        inclusive: true,
        message: `must be at most ${max} characters (got ${chars})`,
        input: value,
      });
    }
  });
}

const label = () => boundedText(MAX_LABEL_CHARS);

/** A list of distinct labels, `min` to `max` long. */
function labelList(min: number, max: number) {
  return z
    .array(label(), { error: 'must be an array of strings' })
    .min(min, { error: `must list at least ${min} label${min === 1 ? '' : 's'}` })
    .max(max, { error: `must list at most ${max} labels` })
    .superRefine((labels, ctx) => {
      labels.forEach((value, i) => {
        if (labels.indexOf(value) !== i) {
          ctx.addIssue({ code: 'custom', path: [i], message: `"${value}" is listed twice`, input: value });
        }
      });
    });
}

/** A hypothesis template: `{}` marks where the label goes, as in the Hugging Face pipeline. */
const template = () =>
  boundedText(MAX_TEMPLATE_CHARS).refine((value) => value.includes('{}'), {
    error: 'must contain {} where the label goes, e.g. "This example is {}."',
  });

/** Body of POST /detect. */
export const detectRequest = (limits: NliLimits) =>
  z.strictObject({ text: boundedText(limits.maxTextChars) });

/** Body of POST /classify; unknown fields are refused, so a typo (`multilabel`) is not silently ignored. */
export const classifyRequest = (limits: NliLimits) =>
  z.strictObject({
    text: boundedText(limits.maxTextChars),
    candidate_labels: labelList(1, limits.maxLabels),
    multi_label: z.boolean({ error: 'must be true or false' }).default(false),
    /** Default: the configured template (nli_config), so a test here matches what /detect sees. */
    hypothesis_template: template().optional(),
  });

/**
 * Body of PUT /config: any of the fields, at least one; absent fields keep their value. Rules across
 * fields (safe labels among the candidates) are checked on the result, in the nli service's store.
 */
export const configUpdate = (limits: NliLimits) =>
  z
    .strictObject({
      candidate_labels: labelList(1, limits.maxLabels).optional(),
      safe_labels: z
        .array(label(), { error: 'must be an array of strings' })
        .max(limits.maxLabels, { error: `must list at most ${limits.maxLabels} labels` })
        .optional(),
      threshold: z
        .number({ error: 'must be a number' })
        .gt(0, { error: 'must be greater than 0' })
        .lte(1, { error: 'must be at most 1' })
        .optional(),
      hypothesis_template: template().optional(),
      enabled: z.boolean({ error: 'must be true or false' }).optional(),
    })
    .refine((body) => Object.keys(body).length > 0, {
      error: 'must change at least one field',
      // Only for an otherwise valid body: an unknown field alone already says what is wrong.
      when: (payload) => payload.issues.length === 0,
    });

/** The answer of POST /detect. */
export const detection = z
  .strictObject({
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
export type Detection = z.infer<typeof detection>;

/** The answer of POST /classify (`sequence` is the text, as the Hugging Face pipeline names it). */
export const classification = z
  .strictObject({
    sequence: z.string(),
    labels: z.array(z.string()),
    scores: z.array(z.number()),
    model: z.string(),
    cached: z.boolean(),
  })
  .meta({ id: 'NliClassification' });

/** The answer of GET and PUT /config. */
export const nliConfig = z
  .strictObject({
    candidate_labels: z.array(z.string()),
    safe_labels: z.array(z.string()),
    threshold: z.number().meta({ description: 'nli.violation_threshold' }),
    hypothesis_template: z.string(),
    enabled: z.boolean(),
    revision: z.int(),
    updated_at: z.string(),
  })
  .meta({ id: 'NliConfig' });

/** The answer of GET /status. */
export const nliStatus = z.strictObject({
  model_ready: z.boolean(),
  model_id: z.string().nullable(),
  test_model: z.boolean(),
  model_error: z.string().optional(),
  candidate_labels: z.array(z.string()),
  safe_labels: z.array(z.string()),
  threshold: z.number(),
  enabled: z.boolean(),
  cache: z.strictObject({ hits: z.number(), misses: z.number() }),
});
