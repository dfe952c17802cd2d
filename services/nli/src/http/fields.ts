import { codePoints } from '@tp/runtime';
import { z } from 'zod';

/** Request limits from the settings (NLI_MAX_TEXT_CHARS, NLI_MAX_LABELS). */
export interface Limits {
  readonly maxTextChars: number;
  readonly maxLabels: number;
}

/** Room for the longest text even if every character arrives as a 6-byte \uXXXX escape, plus labels. */
export const bodyLimit = (limits: Limits) => limits.maxTextChars * 6 + 64 * 1024;

export const MAX_LABEL_CHARS = 100;
/** The nli_config column is varchar(200). */
export const MAX_TEMPLATE_CHARS = 200;

/** A non-blank string of at most `max` characters. */
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
    // Code points, so a Chinese or emoji text is not counted double.
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

export const textField = (maxChars: number) => boundedText(maxChars);

export const labelField = () => boundedText(MAX_LABEL_CHARS);

/** A list of distinct labels, `min` to `max` long. */
export function labelList(min: number, max: number) {
  return z
    .array(labelField(), { error: 'must be an array of strings' })
    .min(min, { error: `must list at least ${min} label${min === 1 ? '' : 's'}` })
    .max(max, { error: `must list at most ${max} labels` })
    .superRefine((labels, ctx) => {
      labels.forEach((label, i) => {
        if (labels.indexOf(label) !== i) {
          ctx.addIssue({ code: 'custom', path: [i], message: `"${label}" is listed twice`, input: label });
        }
      });
    });
}

/** A hypothesis template: `{}` marks where the label goes, as in the Hugging Face pipeline. */
export function templateField() {
  return boundedText(MAX_TEMPLATE_CHARS).refine((value) => value.includes('{}'), {
    error: 'must contain {} where the label goes, e.g. "This example is {}."',
  });
}
