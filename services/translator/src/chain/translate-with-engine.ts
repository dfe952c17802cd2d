import type { TermScanner } from '@tp/translation';

import {
  EngineError,
  GlossaryNotAppliedError,
  type EngineGlossary,
  type TranslationEngine,
} from '../engines/engine.js';
import { UNCHANGED, checkOutput } from './output-checks.js';
import { mask, restore, type MaskTerms } from './protected-spans.js';
import { BreakerOpenError } from './resilience.js';
import { splitText } from './splitter.js';

export interface EngineInput {
  readonly text: string;
  readonly source: string;
  readonly target: string;
  /** The pair's glossary: its terms masked and replaced, or passed to an engine that applies it. */
  readonly glossary?: ChainGlossary;
}

/** A glossary as the chain applies it. */
export interface ChainGlossary extends EngineGlossary {
  /** Finds the source terms (index = entry index). */
  readonly scanner: TermScanner;
}

export type EngineOutcome =
  | {
      readonly ok: true;
      readonly text: string;
      readonly truncated: boolean;
      readonly detectedSource?: string;
      readonly unknownWords?: number;
    }
  | {
      readonly ok: false;
      readonly breakerOpen: boolean;
      readonly reason: string;
      /** The engine said it does not serve the pair. */
      readonly unsupported?: boolean;
      /** Set when the only problem was an unchanged answer: the restored text, for the chain to weigh. */
      readonly unchanged?: {
        readonly text: string;
        readonly truncated: boolean;
        readonly detectedSource?: string;
        readonly unknownWords?: number;
      };
    };

/**
 * One engine's whole go at a text: mask protected spans, split into chunks of at most engine.maxChars
 * (or, with split off, send one piece and let the result say it was truncated), translate the chunks
 * in order, check each answer, join and restore. Any problem is this engine's failure; only an abort
 * of `signal` is thrown.
 */
export async function translateWithEngine(
  engine: TranslationEngine,
  input: EngineInput,
  split: boolean,
  signal: AbortSignal,
): Promise<EngineOutcome> {
  const { glossary } = input;
  if (!glossary) return translateMasked(engine, input, split, signal, undefined);
  if (engine.appliesGlossaries) {
    const native = await translateMasked(engine, input, split, signal, undefined, glossary);
    // The engine could not take this glossary: its terms are masked instead, as for any engine.
    if (native.ok || !native.glossaryRefused) return native;
  }
  const targets = glossary.entries.map((entry) => entry.target);
  return translateMasked(engine, input, split, signal, { scanner: glossary.scanner, targets });
}

async function translateMasked(
  engine: TranslationEngine,
  input: EngineInput,
  split: boolean,
  signal: AbortSignal,
  terms: MaskTerms | undefined,
  glossary?: EngineGlossary,
): Promise<EngineOutcome & { glossaryRefused?: boolean }> {
  const masked = mask(input.text, terms);
  const { pieces, cutShort } = piecesFor(masked.text, engine.maxChars, split);

  const translated: string[] = [];
  let truncated = cutShort;
  let detectedSource: string | undefined;
  let unknownWords: number | undefined;
  let unchanged = false;
  for (const piece of pieces) {
    const { lead, core, trail } = trimmed(piece);
    if (core === '') {
      translated.push(piece);
      continue;
    }
    let result;
    try {
      const request = { text: core, source: input.source, target: input.target };
      result = await engine.translate(glossary ? { ...request, glossary } : request, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return engineFailure(error);
    }
    detectedSource ??= result.detectedSource;
    if (result.unknownWords !== undefined) unknownWords = (unknownWords ?? 0) + result.unknownWords;
    truncated ||= result.truncated;
    const source = input.source === 'auto' ? (result.detectedSource ?? 'auto') : input.source;
    const problem = checkOutput({ input: core, output: result.text, source, target: input.target });
    if (problem === UNCHANGED) unchanged = true;
    else if (problem !== undefined) return { ok: false, breakerOpen: false, reason: problem };
    // Engines often trim; the original spacing between chunks is kept so the join reads as before.
    translated.push(lead + result.text.trim() + trail);
  }

  const restored = restore(translated.join(''), masked.spans);
  const spanProblem = spansProblem(masked.spans, restored, pieces, { cutShort, truncated });
  if (spanProblem) return { ok: false, breakerOpen: false, reason: spanProblem };

  const done = {
    text: restored.text,
    truncated,
    ...(detectedSource ? { detectedSource } : {}),
    ...(unknownWords !== undefined ? { unknownWords } : {}),
  };
  if (unchanged) return { ok: false, breakerOpen: false, reason: UNCHANGED, unchanged: done };
  return { ok: true, ...done };
}

/** A failed engine call as an outcome: a refused glossary, an open breaker and a refused pair are told apart. */
function engineFailure(error: unknown): EngineOutcome & { glossaryRefused?: boolean } {
  return {
    ...(error instanceof GlossaryNotAppliedError ? { glossaryRefused: true } : {}),
    ok: false,
    breakerOpen: error instanceof BreakerOpenError,
    reason: describe(error),
    ...(error instanceof EngineError && error.kind === 'unsupported' ? { unsupported: true } : {}),
  };
}

/**
 * What went wrong with the protected spans, if anything. Spans beyond a truncated answer are missing by
 * design. Where we cut, we know which ones; where the engine cut on its own, we cannot tell, so only
 * doubled or invented tokens count then.
 */
function spansProblem(
  spans: readonly string[],
  restored: ReturnType<typeof restore>,
  pieces: readonly string[],
  { cutShort, truncated }: { readonly cutShort: boolean; readonly truncated: boolean },
): string | undefined {
  const expectedMissing = cutShort
    ? new Set(restore(pieces.join(''), spans).lost)
    : new Set(truncated ? restored.lost : []);
  const lost = restored.lost.filter((index) => !expectedMissing.has(index));
  return describeSpans(
    lost.map((i) => spans[i] as string),
    restored.duplicated.map((i) => spans[i] as string),
    restored.unexpected,
  );
}

function piecesFor(text: string, maxChars: number, split: boolean): { pieces: string[]; cutShort: boolean } {
  if (split) return { pieces: splitText(text, maxChars), cutShort: false };
  if (text.length <= maxChars) return { pieces: [text], cutShort: false };
  // Cut here, on a sentence boundary, rather than leave it to the engine: a cut inside a token would
  // leave a fragment that restore() cannot recognise.
  return { pieces: splitText(text, maxChars).slice(0, 1), cutShort: true };
}

function trimmed(piece: string): { lead: string; core: string; trail: string } {
  const core = piece.trim();
  if (core === '') return { lead: piece, core, trail: '' };
  const start = piece.indexOf(core);
  return { lead: piece.slice(0, start), core, trail: piece.slice(start + core.length) };
}

function describe(error: unknown): string {
  if (error instanceof BreakerOpenError) return 'circuit breaker open';
  if (error instanceof EngineError) return `${error.kind}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function describeSpans(
  lost: string[],
  duplicated: string[],
  unexpected: readonly string[],
): string | undefined {
  const parts = [
    lost.length ? `lost protected spans ${JSON.stringify(lost)}` : '',
    duplicated.length ? `duplicated protected spans ${JSON.stringify(duplicated)}` : '',
    unexpected.length ? `unknown tokens ${JSON.stringify(unexpected)}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : undefined;
}
