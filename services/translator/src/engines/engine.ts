/**
 * The port every translation engine implements. Adapters (DeepL, Google, MyMemory, LibreTranslate,
 * Apertium, offline ONNX) are thin: one call translates the texts of a batch, as many as the engine's
 * API takes at once (`batch`), and answers each text's translation or its own EngineError; a failure
 * of the whole call is thrown. Timeouts, retries, circuit breakers, splitting, output checks and
 * protected spans are applied around them by the chain, per call and per text.
 */

import type { PairCoverage } from './pair-coverage.js';

/**
 * Engine names, in chain order: variant (opencc), primary (deepl|google), fallback (mymemory), local
 * (libretranslate), apertium, offline.
 */
export type EngineName =
  'opencc' | 'deepl' | 'google' | 'mymemory' | 'libretranslate' | 'apertium' | 'offline';

export interface EngineRequest {
  /**
   * Texts to translate, answered in this order; protected spans are already masked by the chain.
   * Each is at most `maxChars` long, and together they keep within `batch`.
   */
  readonly texts: readonly string[];
  /** Our language code (as in the language list, e.g. `zh-CN`, `en`), or `auto` to let the engine detect. */
  readonly source: string;
  /** Our language code. */
  readonly target: string;
  /** Only for engines with `appliesGlossaries`: the pair's glossary, for the engine's own glossary API. */
  readonly glossary?: EngineGlossary;
  /** The request's formality, for engines whose `controls` take it; `default` or absent: none asked. */
  readonly formality?: Formality;
  /** Text that informs the translation but is not translated, for engines whose `controls` take it. */
  readonly context?: string;
}

/** The formality a request may ask for (DeepL's values). */
export const FORMALITIES = ['default', 'more', 'less', 'prefer_more', 'prefer_less'] as const;
export type Formality = (typeof FORMALITIES)[number];

/** Which per-request controls an engine applies into a target language. */
export interface EngineControls {
  readonly formality: boolean;
  readonly context: boolean;
}

/** A glossary as an engine with its own glossary API takes it. */
export interface EngineGlossary {
  /** Changes with every version of the glossary: `<id>:<version>`. */
  readonly key: string;
  /** Our language codes of the glossary's pair. */
  readonly source: string;
  readonly target: string;
  readonly entries: readonly { readonly source: string; readonly target: string }[];
}

export interface EngineResult {
  readonly text: string;
  /** Our language code of the detected source, when the engine reports one. */
  readonly detectedSource?: string;
  /** True when the engine translated only part of the input (MyMemory's 500-character limit). */
  readonly truncated: boolean;
  /** Words the engine did not know and left as they were (Apertium marks them), when it says. */
  readonly unknownWords?: number;
}

/**
 * One text's answer within a call: its translation, or its own failure (the other texts of the call
 * keep theirs).
 */
export type EngineItem = EngineResult | EngineError;

/** What one call of an engine takes: how many texts, and how many characters (UTF-16 units) in all. */
export interface BatchLimits {
  readonly maxTexts: number;
  readonly maxChars: number;
}

export interface TranslationEngine {
  readonly name: EngineName;
  /** Most characters one text may have; the chain splits longer text on sentence boundaries. */
  readonly maxChars: number;
  /** How many texts one call takes; absent: one text per call (MyMemory's API). */
  readonly batch?: BatchLimits;
  /**
   * Translates the request's texts and answers one item per text, in order. Throws an EngineError
   * when the whole call failed (an HTTP error, a refused pair), and the signal's reason when aborted.
   */
  translate(request: EngineRequest, signal: AbortSignal): Promise<readonly EngineItem[]>;
  /** The per-request controls the engine applies into `target`; absent: none (they are ignored). */
  controls?(target: string): EngineControls;
  /**
   * The engine applies glossaries itself (DeepL's glossary API): the chain passes the glossary
   * instead of masking its terms. It throws GlossaryNotAppliedError when it cannot for a pair.
   */
  readonly appliesGlossaries?: boolean;
  /**
   * Only for engines with `appliesGlossaries`: deletes the engine's copies of these glossaries
   * (deleted in our API) and answers the ids of which none is left, or undefined when it could not tell.
   */
  removeDeletedGlossaries?(glossaryIds: readonly string[]): Promise<ReadonlySet<string> | undefined>;
  /**
   * Asks the engine which language pairs it serves now (its language list, its installed pairs or
   * models). The chain's pair directory calls it at start and then periodically.
   */
  languagePairs(signal: AbortSignal): Promise<PairCoverage>;
}

/**
 * Why an engine call failed:
 * - `transient`: worth retrying after a backoff (429, 5xx, timeouts, connection errors);
 * - `quota`: retrying now is pointless (DeepL 456, Google daily quota, MyMemory quota): open the breaker;
 * - `unsupported`: this engine cannot do this language pair;
 * - `rejected`: the engine refused this request (4xx) or answered with unusable output; try the next engine.
 */
export type EngineFailureKind = 'transient' | 'quota' | 'unsupported' | 'rejected';

export class EngineError extends Error {
  override readonly name = 'EngineError';
  constructor(
    readonly engine: EngineName,
    readonly kind: EngineFailureKind,
    message: string,
    /** From a Retry-After header, when the engine sent one. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(`${engine}: ${message}`, options);
  }
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds; undefined when absent or bad. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  // not user text: an engine's Retry-After header
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The limits of an engine's calls: its `batch`, or one text of `maxChars`. */
export const batchLimits = (engine: Pick<TranslationEngine, 'batch' | 'maxChars'>): BatchLimits =>
  engine.batch ?? { maxTexts: 1, maxChars: engine.maxChars };

/** One text of a request, as the single-text engine functions take it. */
export type TextRequest = Omit<EngineRequest, 'texts'> & { readonly text: string };

/**
 * The port's `translate` for an engine whose API takes one text per request (MyMemory): the texts
 * one after the other, the first failure thrown for the whole call. The chain sends such an engine
 * one text per call (no `batch`), so a failure is that text's and its retries are that text's.
 */
export function oneTextPerCall(
  translateOne: (request: TextRequest, signal: AbortSignal) => Promise<EngineResult>,
): TranslationEngine['translate'] {
  return async ({ texts, ...rest }, signal) => {
    const items: EngineResult[] = [];
    for (const text of texts) items.push(await translateOne({ ...rest, text }, signal));
    return items;
  };
}

/** The engine cannot apply this glossary itself (e.g. DeepL has no glossaries for the pair): mask its terms instead. */
export class GlossaryNotAppliedError extends EngineError {
  constructor(engine: EngineName, message: string, options?: { cause?: unknown }) {
    super(engine, 'unsupported', message, undefined, options);
  }
}
