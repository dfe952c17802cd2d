/**
 * The port every translation engine implements. Adapters (DeepL, Google, MyMemory, LibreTranslate,
 * offline ONNX) are thin: they translate one piece of text or throw an EngineError. Timeouts, retries,
 * circuit breakers, splitting, output checks and protected spans are applied around them by the chain.
 */

import type { PairCoverage } from './pair-coverage.js';

/**
 * Engine names, in chain order: primary (deepl|google), fallback (mymemory), local (libretranslate),
 * apertium, offline.
 */
export type EngineName = 'deepl' | 'google' | 'mymemory' | 'libretranslate' | 'apertium' | 'offline';

export interface EngineRequest {
  /** Text to translate; protected spans are already masked by the chain. */
  readonly text: string;
  /** Our language code (as in the language list, e.g. `zh-CN`, `en`), or `auto` to let the engine detect. */
  readonly source: string;
  /** Our language code. */
  readonly target: string;
  /** Only for engines with `appliesGlossaries`: the pair's glossary, for the engine's own glossary API. */
  readonly glossary?: EngineGlossary;
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

export interface TranslationEngine {
  readonly name: EngineName;
  /** Most characters one call accepts; the chain splits longer text on sentence boundaries. */
  readonly maxChars: number;
  translate(request: EngineRequest, signal: AbortSignal): Promise<EngineResult>;
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

/** The engine cannot apply this glossary itself (e.g. DeepL has no glossaries for the pair): mask its terms instead. */
export class GlossaryNotAppliedError extends EngineError {
  constructor(engine: EngineName, message: string, options?: { cause?: unknown }) {
    super(engine, 'unsupported', message, undefined, options);
  }
}
