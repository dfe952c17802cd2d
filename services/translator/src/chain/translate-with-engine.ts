import type { TermScanner } from '@tp/translation';

import {
  batchLimits,
  EngineError,
  GlossaryNotAppliedError,
  type EngineGlossary,
  type EngineItem,
  type Formality,
  type TranslationEngine,
} from '../engines/engine.js';
import { UNCHANGED, checkOutput } from './output-checks.js';
import { mask, restore, type MaskedText, type MaskTerms } from './protected-spans.js';
import { BreakerOpenError } from './resilience.js';
import { splitText } from './splitter.js';

/** Texts of one language pair for one engine. */
export interface EngineInput {
  readonly texts: readonly string[];
  readonly source: string;
  readonly target: string;
  /** The pair's glossary: its terms masked and replaced, or passed to an engine that applies it. */
  readonly glossary?: ChainGlossary;
  readonly formality?: Formality;
  readonly context?: string;
}

/** A glossary as the chain applies it. */
export interface ChainGlossary extends EngineGlossary {
  /** Finds the source terms (index = entry index). */
  readonly scanner: TermScanner;
}

interface Translated {
  readonly text: string;
  readonly truncated: boolean;
  readonly detectedSource?: string;
  readonly unknownWords?: number;
}

export type EngineOutcome =
  | ({ readonly ok: true } & Translated)
  | {
      readonly ok: false;
      readonly breakerOpen: boolean;
      readonly reason: string;
      /** The engine said it does not serve the pair. */
      readonly unsupported?: boolean;
      /** Set when the only problem was an unchanged answer: the restored text, for the chain to weigh. */
      readonly unchanged?: Translated;
    };

type Outcome = EngineOutcome & { readonly glossaryRefused?: boolean };

/**
 * One engine's whole go at several texts: mask each text's protected spans, split it into pieces of
 * at most engine.maxChars (or, with split off, send one piece and let the result say it was
 * truncated), send the pieces of every text in as few calls as the engine's batch limits allow,
 * check each answer, then join and restore each text. Answers one outcome per text, in order: a
 * failed call fails the texts it carried, a failure the engine answered for one piece fails that
 * piece's text only. Only an abort of `signal` is thrown.
 */
export async function translateWithEngine(
  engine: TranslationEngine,
  input: EngineInput,
  split: boolean,
  signal: AbortSignal,
): Promise<EngineOutcome[]> {
  const { glossary } = input;
  if (!glossary) return translateMasked(engine, input, split, signal, undefined);
  const targets = glossary.entries.map((entry) => entry.target);
  const terms = { scanner: glossary.scanner, targets };
  if (!engine.appliesGlossaries) return translateMasked(engine, input, split, signal, terms);
  const native = await translateMasked(engine, input, split, signal, undefined, glossary);
  // The engine could not take this glossary: its terms are masked instead, as for any engine.
  const refused = native.flatMap((outcome, index) => (outcome.glossaryRefused ? [index] : []));
  if (refused.length === 0) return native;
  const texts = refused.map((index) => input.texts[index] as string);
  const masked = await translateMasked(engine, { ...input, texts }, split, signal, terms);
  refused.forEach((index, i) => (native[index] = masked[i] as Outcome));
  return native;
}

/** One piece of one text, as sent to the engine: its text without the spacing around it. */
interface Piece {
  readonly item: number;
  readonly lead: string;
  readonly core: string;
  readonly trail: string;
}

/** A text masked and cut into pieces. */
interface Prepared {
  readonly masked: MaskedText;
  readonly pieces: readonly string[];
  readonly cutShort: boolean;
}

async function translateMasked(
  engine: TranslationEngine,
  input: EngineInput,
  split: boolean,
  signal: AbortSignal,
  terms: MaskTerms | undefined,
  glossary?: EngineGlossary,
): Promise<Outcome[]> {
  const limits = batchLimits(engine);
  const pieceChars = Math.min(engine.maxChars, limits.maxChars);
  const prepared: Prepared[] = input.texts.map((text) => {
    const masked = mask(text, terms);
    return { masked, ...piecesFor(masked.text, pieceChars, split) };
  });
  const pieces = prepared.flatMap(({ pieces: texts }, item) => texts.map((piece) => trimmed(item, piece)));
  const answers = await sendPieces(engine, pieces, input, signal, glossary);
  const byText = prepared.map((): { piece: Piece; answer: Answer }[] => []);
  pieces.forEach((piece, i) => byText[piece.item]?.push({ piece, answer: answers[i] }));
  return prepared.map((text, item) => assemble(text, byText[item] ?? [], input));
}

/** What came back for one piece: the engine's item, or the failure of the call that carried it. */
type Answer = EngineItem | { readonly callFailed: unknown } | undefined;

/**
 * Sends the non-blank pieces in calls within the engine's batch limits, one call after the other.
 * A piece whose text already failed is not sent again.
 */
async function sendPieces(
  engine: TranslationEngine,
  pieces: readonly Piece[],
  input: EngineInput,
  signal: AbortSignal,
  glossary: EngineGlossary | undefined,
): Promise<Answer[]> {
  const answers: Answer[] = new Array<Answer>(pieces.length);
  const failed = new Set<number>();
  const { formality, context } = input;
  const request = {
    source: input.source,
    target: input.target,
    ...(glossary ? { glossary } : {}),
    ...(formality && formality !== 'default' ? { formality } : {}),
    ...(context ? { context } : {}),
  };
  for (const call of packCalls(engine, pieces)) {
    const sent = call.filter((index) => !failed.has((pieces[index] as Piece).item));
    if (sent.length === 0) continue;
    const texts = sent.map((index) => (pieces[index] as Piece).core);
    let items: readonly EngineItem[] | { callFailed: unknown };
    try {
      items = await engine.translate({ ...request, texts }, signal);
      if (items.length !== texts.length) {
        const message = `answered ${items.length} texts for ${texts.length}`;
        items = { callFailed: new EngineError(engine.name, 'rejected', message) };
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      items = { callFailed: error };
    }
    sent.forEach((index, i) => {
      const answer = Array.isArray(items) ? (items[i] as EngineItem) : (items as { callFailed: unknown });
      answers[index] = answer;
      if (!('text' in answer)) failed.add((pieces[index] as Piece).item);
    });
  }
  return answers;
}

/** Indexes of the non-blank pieces, grouped into calls of at most the engine's texts and characters. */
function packCalls(engine: TranslationEngine, pieces: readonly Piece[]): number[][] {
  const { maxTexts, maxChars } = batchLimits(engine);
  const calls: number[][] = [];
  let call: number[] = [];
  let chars = 0;
  pieces.forEach(({ core }, index) => {
    if (core === '') return;
    if (call.length > 0 && (call.length >= maxTexts || chars + core.length > maxChars)) {
      calls.push(call);
      call = [];
      chars = 0;
    }
    call.push(index);
    chars += core.length;
  });
  if (call.length > 0) calls.push(call);
  return calls;
}

/** One text's outcome from its pieces' answers: checked, joined and restored. */
function assemble(
  { masked, pieces, cutShort }: Prepared,
  answered: readonly { piece: Piece; answer: Answer }[],
  input: EngineInput,
): Outcome {
  const translated: string[] = [];
  let truncated = cutShort;
  let detectedSource: string | undefined;
  let unknownWords: number | undefined;
  let unchanged = false;
  for (const { piece, answer } of answered) {
    const { lead, core, trail } = piece;
    if (core === '') {
      translated.push(lead);
      continue;
    }
    if (answer === undefined || !('text' in answer)) {
      return engineFailure(answer && 'callFailed' in answer ? answer.callFailed : answer);
    }
    detectedSource ??= answer.detectedSource;
    if (answer.unknownWords !== undefined) unknownWords = (unknownWords ?? 0) + answer.unknownWords;
    truncated ||= answer.truncated;
    const source = input.source === 'auto' ? (answer.detectedSource ?? 'auto') : input.source;
    const problem = checkOutput({
      input: core,
      output: answer.text,
      source,
      target: input.target,
      ...(answer.unknownWords !== undefined ? { unknownWords: answer.unknownWords } : {}),
    });
    if (problem === UNCHANGED) unchanged = true;
    else if (problem !== undefined) return { ok: false, breakerOpen: false, reason: problem };
    // Engines often trim; the original spacing between chunks is kept so the join reads as before.
    translated.push(lead + answer.text.trim() + trail);
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
function engineFailure(error: unknown): Outcome {
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

function trimmed(item: number, piece: string): Piece {
  const core = piece.trim();
  if (core === '') return { item, lead: piece, core, trail: '' };
  const start = piece.indexOf(core);
  return { item, lead: piece.slice(0, start), core, trail: piece.slice(start + core.length) };
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
