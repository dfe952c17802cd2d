import type { IncomingMessage } from 'node:http';

import { assertTextLength, requestId } from '@tp/runtime';
import {
  MAX_DETECT_TEXTS,
  UNDETECTED_REASONS,
  languageCandidate,
  type languageDetection,
} from '@tp/service-contracts';
import type { Request } from 'express';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import { ANONYMOUS_MAX_TEXT_CHARS } from '../translate/translate.routes.js';
import type { TranslatorClient } from '../translate/translator-client.js';

export const detectBody = z.strictObject({
  text: z
    .union([z.string(), z.array(z.string()).min(1).max(MAX_DETECT_TEXTS)])
    .meta({ description: `One text, or up to ${MAX_DETECT_TEXTS} answered in their order.` }),
});

const detectionSchema = z
  .object({
    language: z.string().nullable().meta({
      description: 'The best candidate when the text says enough to trust it; null otherwise (see `reason`).',
    }),
    reliable: z.boolean().meta({ description: 'Whether `language` is given.' }),
    reason: z.enum(UNDETECTED_REASONS).nullable().meta({
      description:
        'Why no language is given: `no_letters` (digits, emoji, punctuation), `too_short`, `mixed` (no writing system has most of the text), `uncertain` (the best guesses are too close); null when `language` is given.',
    }),
    candidates: z.array(languageCandidate).meta({
      description: 'At most 3, best first; confidences between 0 and 1, adding up to at most 1.',
    }),
  })
  .meta({ id: 'LanguageDetection' });

export interface DetectRouteOptions {
  readonly translator: TranslatorClient;
  /** The limit for this request, as for POST /api/v1/translate: more with a valid key. */
  readonly maxTextChars: (req: IncomingMessage) => Promise<number>;
  readonly keyedMaxTextChars: number;
}

/** POST /api/v1/detect: the detector `source: "auto"` uses, asked directly. */
export const detectRoute = ({ translator, maxTextChars, keyedMaxTextChars }: DetectRouteOptions) =>
  defineRoute({
    method: 'post',
    path: '/api/v1/detect',
    summary: 'Detect the language of texts',
    description: `Public, with the limits of POST /api/v1/translate: at most ${ANONYMOUS_MAX_TEXT_CHARS} characters (code points, all texts together) without a key, MAX_TEXT_CHARS (${keyedMaxTextChars} here) with one; longer is 413 TEXT_TOO_LONG. The detector is the one \`source: "auto"\` uses: the text's script, eld's n-grams, zh-CN and zh-TW told apart by the characters only one script writes (OpenCC), and the published languages favoured over close neighbours (Indonesian over Malay, Hindi over Marathi). It reads the first 2000 characters of a text.`,
    tags: ['translation'],
    access: 'public',
    request: { body: detectBody },
    response: {
      status: 200,
      description: 'One detection per text, in order.',
      schema: z.object({ results: z.array(detectionSchema) }),
    },
    errors: ['TEXT_TOO_LONG', 'TRANSLATOR_UNAVAILABLE'],
    handler: async ({ req, body, signal }) => ({
      results: await detectLanguages({ translator, maxTextChars }, body.text, req, signal),
    }),
  });

/**
 * The detection use case: the texts held to the request's limit (413 TEXT_TOO_LONG), then the
 * translator's detector. POST /api/v1/detect and LibreTranslate's /detect call it.
 */
export async function detectLanguages(
  { translator, maxTextChars }: Pick<DetectRouteOptions, 'translator' | 'maxTextChars'>,
  text: string | readonly string[],
  req: Request,
  signal: AbortSignal,
) {
  const texts = typeof text === 'string' ? [text] : [...text];
  assertTextLength(texts.join(''), await maxTextChars(req));
  const { detections } = await translator.detect(texts, requestId(req), signal);
  return detections.map(publicDetection);
}

function publicDetection(detection: z.output<typeof languageDetection>) {
  return {
    language: detection.language ?? null,
    reliable: detection.language !== undefined,
    reason: detection.reason ?? null,
    candidates: detection.candidates,
  };
}
