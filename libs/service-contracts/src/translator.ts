import { TEXT_FORMATS } from '@tp/translation';
import { z } from 'zod';

// The translator's internal HTTP API, as the gateway calls it. Objects are strict: a field one side
// sends and the other does not know fails the parse, so the two cannot drift apart unseen.

/** The spec's default source language. */
export const DEFAULT_SOURCE = 'zh-CN';

/**
 * The chain's slots in order (docs/decisions.md, "Which engines run, and in which order"): `variant`
 * first, the converter between written variants of one language (OpenCC, zh-CN <-> zh-TW), which
 * serves no other pair and does its own better than any translator.
 */
export const SLOTS = ['variant', 'primary', 'fallback', 'local', 'apertium', 'offline'] as const;
export type SlotName = (typeof SLOTS)[number];

/** `unsupported`: the engine does not serve the pair (by its list, not called, or by its own answer). */
export const ATTEMPT_OUTCOMES = ['ok', 'failed', 'skipped', 'breaker-open', 'unsupported'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

const text = () => z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' });

/** How the texts are written: plain text (default), HTML or Markdown, cut into segments (@tp/translation). */
const format = z.enum(TEXT_FORMATS).default('text');

/** The formality a request may ask for (DeepL's values). */
export const FORMALITIES = ['default', 'more', 'less', 'prefer_more', 'prefer_less'] as const;

/** The most characters of `context` (code points; it informs, it is not translated). */
export const MAX_CONTEXT_CHARS = 5000;

/** Per-request controls: a stored glossary by id or name, the formality, a context. */
export const translationControls = {
  glossary: z.string().min(1).max(200).optional(),
  formality: z.enum(FORMALITIES).optional(),
  context: z.string().max(MAX_CONTEXT_CHARS).optional(),
};

/** Body of POST /translate and POST /translate/test; unknown fields are refused (a typo such as `targt`). */
export const translateRequest = z.strictObject({
  text: text(),
  source: text().default(DEFAULT_SOURCE),
  target: text(),
  format,
  ...translationControls,
});

/** The query of GET /pairs: our language codes narrowing the list. */
export const pairsQuery = z.strictObject({ source: z.string().optional(), target: z.string().optional() });

const routeStep = z.strictObject({ source: z.string(), target: z.string(), engine: z.string() });
const route = z
  .array(routeStep)
  .optional()
  .meta({ description: 'One step for the pair itself, two through a pivot language.' });

const attempt = z.strictObject({
  slot: z.enum(SLOTS),
  /** Absent when the slot has no engine configured. */
  engine: z.string().optional(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  reason: z.string().optional(),
  /** Time spent on this engine, all chunks and retries included. */
  ms: z.number(),
  /** The hop of a pivot route this attempt was for (absent for the requested pair itself). */
  source: z.string().optional(),
  target: z.string().optional(),
});

const applied = z.enum(['applied', 'ignored']);

/** For each control the request gave: whether the engine that translated applied it. */
export const controlsReport = z
  .strictObject({ glossary: applied.optional(), formality: applied.optional(), context: applied.optional() })
  .optional()
  .meta({
    description:
      'Only for the controls the request gave: `applied` by the engine that translated, or `ignored` (it has no such option, or not for this language; a pivot route takes none but the glossary).',
  });

/** The answer of POST /translate. */
export const translationResult = z.strictObject({
  translatedText: z.string(),
  /** Source language actually used: the requested one, or the detected one for `auto`. */
  source: z.string(),
  target: z.string(),
  /** Only when the request said `auto`: the language found (by us, or by the engine). */
  detectedSource: z.string().optional(),
  /** The engine that translated (two joined by `+` on a pivot route that used both), or `none`. */
  engine: z.string(),
  cached: z.boolean(),
  /** Only the start of the text was translated (the free fallback's 500-character limit). */
  truncated: z.boolean(),
  /** A weaker engine answered: a stronger one that serves the pair failed. */
  fallback: z.boolean(),
  /** Seconds spent on this request; close to 0 on a cache hit. */
  duration: z.number(),
  /** What each engine of the chain did, in order; empty when no engine was needed. */
  attempts: z.array(attempt),
  route,
  /** Words the engine left untranslated, when it says (Apertium). */
  unknownWords: z.int().optional(),
  controls: controlsReport,
});
export type TranslationResult = z.infer<typeof translationResult>;

/** Texts one POST /translate/batch (and one POST /api/v1/translate) takes. */
export const MAX_TRANSLATE_TEXTS = 128;

/** Body of POST /translate/batch: texts of one pair, each translated on its own, answered in order. */
export const translateBatchRequest = z.strictObject({
  texts: z
    .array(z.string({ error: 'must be a string' }))
    .min(1, { error: 'must hold at least one text' })
    .max(MAX_TRANSLATE_TEXTS, { error: `must hold at most ${MAX_TRANSLATE_TEXTS} texts` }),
  source: text().default(DEFAULT_SOURCE),
  target: text(),
  format,
  ...translationControls,
});

/** A text's own failure within a batch: the error envelope's fields, without the request id. */
export const itemError = z.strictObject({
  code: z.int(),
  error: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});
export type ItemError = z.infer<typeof itemError>;

/** The answer of POST /translate/batch: one item per text, in order, and how many failed. */
export const translateBatchAnswer = z.strictObject({
  items: z.array(z.union([translationResult, z.strictObject({ error: itemError })])),
  failed: z.int(),
});
export type TranslateBatchAnswer = z.infer<typeof translateBatchAnswer>;

const testAttempt = z
  .strictObject({
    slot: z.enum(SLOTS),
    engine: z.string().nullable().meta({ description: 'null when the slot has no engine configured.' }),
    outcome: z.enum(ATTEMPT_OUTCOMES).meta({
      description:
        '`unsupported`: the engine does not serve the pair (by its own language list; not called).',
    }),
    reason: z.string().optional(),
    source: z.string().optional().meta({ description: 'On a pivot route: the hop this attempt was for.' }),
    target: z.string().optional(),
    duration_ms: z.number().meta({ description: 'Time spent on this engine, chunks and retries included.' }),
  })
  .meta({ id: 'TranslationAttempt' });

/** The answer of POST /translate/test: the chain alone, every attempt timed. */
export const chainTestResult = z
  .strictObject({
    translatedText: z.string(),
    source: z.string().meta({ description: 'Source language actually used (the detected one for `auto`).' }),
    target: z.string(),
    detectedSource: z.string().optional().meta({ description: 'Only for `auto`.' }),
    engine: z.string().meta({
      description: 'The engine that answered; `none` when no engine was needed (source = target).',
    }),
    truncated: z.boolean(),
    duration: z.number().meta({ description: 'Seconds spent in the chain.' }),
    attempts: z
      .array(testAttempt)
      .meta({ description: 'Every slot of the chain, in order, then the hops of a pivot route.' }),
    route,
    unknownWords: z.int().optional(),
  })
  .meta({ id: 'TranslationTest' });
export type ChainTestResult = z.infer<typeof chainTestResult>;

export const language = z
  .strictObject({
    code: z.string(),
    name: z.string(),
    native_name: z.string(),
    dir: z.enum(['ltr', 'rtl']),
  })
  .meta({ id: 'Language' });

/** The answer of GET /languages. */
export const languagesAnswer = z.strictObject({ languages: z.array(language) });

const engineList = z.array(z.string()).meta({ description: 'In chain order: the first is tried first.' });

export const servedPair = z
  .strictObject({
    source: z.string(),
    target: z.string(),
    engines: engineList.meta({
      description: 'Engines serving the pair directly; empty when only a pivot route does.',
    }),
    via: z
      .string()
      .optional()
      .meta({ description: 'The pivot language, when no engine serves the pair directly.' }),
    route: z
      .array(z.strictObject({ source: z.string(), target: z.string(), engines: engineList }))
      .optional()
      .meta({ description: 'The two hops through `via`, each with its engines.' }),
  })
  .meta({ id: 'LanguagePair' });
export type ServedPair = z.infer<typeof servedPair>;

/** The answer of GET /pairs. */
export const pairsAnswer = z.strictObject({ pairs: z.array(servedPair) });

/** The answer of GET /engines: each slot with its breaker, the engines' pair lists, the offline models. */
export const enginesAnswer = z.strictObject({
  engines: z.array(
    z.strictObject({
      slot: z.enum(SLOTS),
      engine: z.string().optional(),
      configured: z.boolean(),
      /** Absent when not configured. */
      breaker: z.enum(['closed', 'open', 'half-open']).optional(),
      lastError: z.strictObject({ reason: z.string(), at: z.string() }).optional(),
      successes: z.number(),
      failures: z.number(),
    }),
  ),
  pairs: z.array(
    z.strictObject({
      engine: z.string(),
      /** When its list was last read; absent while it never answered. */
      learnedAt: z.string().optional(),
      pairs: z.number(),
      lastError: z.string().optional(),
    }),
  ),
  offlineModels: z.array(
    z.strictObject({
      name: z.string(),
      source: z.string(),
      target: z.string(),
      testModel: z.boolean(),
      loaded: z.boolean(),
      shadowed: z.boolean(),
    }),
  ),
});
export type EnginesAnswer = z.infer<typeof enginesAnswer>;

/** Texts one POST /detect takes (the gateway's POST /api/v1/detect says so too). */
export const MAX_DETECT_TEXTS = 100;

/** Why no language is given (@tp/language-id): no letters, too short, mixed scripts, or close guesses. */
export const UNDETECTED_REASONS = ['no_letters', 'too_short', 'mixed', 'uncertain'] as const;

/** Body of POST /detect: the texts whose language is asked, answered in their order. */
export const languageDetectRequest = z.strictObject({
  texts: z
    .array(z.string({ error: 'must be a string' }))
    .min(1)
    .max(MAX_DETECT_TEXTS),
});

export const languageCandidate = z
  .strictObject({
    language: z.string().meta({ description: 'A code of the language list.' }),
    confidence: z.number().min(0).max(1),
  })
  .meta({ id: 'LanguageCandidate' });

/** One text's detection (@tp/language-id's Detection). */
export const languageDetection = z.strictObject({
  candidates: z.array(languageCandidate),
  language: z.string().optional(),
  reason: z.enum(UNDETECTED_REASONS).optional(),
});

/** The answer of POST /detect. */
export const languageDetectAnswer = z.strictObject({ detections: z.array(languageDetection) });
