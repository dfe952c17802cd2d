import { performance } from 'node:perf_hooks';

import { withSpan } from '@tp/runtime';
import type { Registry } from 'prom-client';

import type { EngineControls, EngineName, Formality, TranslationEngine } from '../engines/engine.js';
import type { PairCoverage } from '../engines/pair-coverage.js';
import { AllEnginesFailedError } from './all-engines-failed.error.js';
import { SLOTS, type Attempt, type AttemptOutcome, type SlotName } from './attempt.js';
import { chainMetrics, type CallOutcome } from './chain-metrics.js';
import { PairDirectory, type PairDirectoryOptions } from './pair-directory.js';
import { pivotLanguages } from './pivot-routes.js';
import { servedPairs, type ServedPair } from './served-pairs.js';
import { UnsupportedPairError } from './unsupported-pair.error.js';
import {
  withResilience,
  type BreakerState,
  type ResilienceOptions,
  type ResilientEngine,
} from './resilience.js';
import { mask, restore } from './protected-spans.js';
import {
  translateWithEngine,
  type ChainGlossary,
  type EngineInput,
  type EngineOutcome,
} from './translate-with-engine.js';

export interface SlotOptions {
  /** Split long text into engine.maxChars chunks (default on, off for `fallback`: see SLOT_DEFAULTS). */
  readonly split?: boolean;
  readonly resilience?: Partial<ResilienceOptions>;
}

export interface ChainOptions {
  /** Applied to every slot, over the slot defaults. */
  readonly resilience?: Partial<ResilienceOptions>;
  /** Per slot, over everything else. */
  readonly slots?: Partial<Record<SlotName, SlotOptions>>;
  /** Where to register the per-engine metrics; none recorded without it. */
  readonly metrics?: Registry;
  /** How the engines' language pairs are learned and refreshed (chain.directory). */
  readonly pairs?: Partial<PairDirectoryOptions>;
  /** What would make a pair no engine serves translatable in this deployment (UnsupportedPairError). */
  readonly remedies?: (source: string, target: string) => readonly string[];
}

/** An engine left undefined is "not configured": skipped, and shown as such in status(). */
export interface ChainEngines {
  readonly variant?: TranslationEngine;
  readonly primary?: TranslationEngine;
  readonly fallback?: TranslationEngine;
  readonly local?: TranslationEngine;
  readonly apertium?: TranslationEngine;
  readonly offline?: TranslationEngine;
  readonly options?: ChainOptions;
}

export interface TranslateRequest {
  readonly text: string;
  /** Our language code, or `auto`. */
  readonly source: string;
  readonly target: string;
  /** The pair's glossary, applied on every engine (see translateWithEngine). */
  readonly glossary?: ChainGlossary;
  /** Passed to the engines that take it (`controls`), on a route for the pair itself; not on a pivot. */
  readonly formality?: Formality;
  /** Passed to the engines that take it (`controls`), on a route for the pair itself; not on a pivot. */
  readonly context?: string;
}

/** Texts of one language pair, translated together: each engine gets them in as few calls as it can. */
export interface TranslateBatchRequest extends Omit<TranslateRequest, 'text'> {
  readonly texts: readonly string[];
}

/** One step of the route that produced a translation. */
export interface RouteStep {
  readonly source: string;
  readonly target: string;
  readonly engine: EngineName;
}

export interface ChainResult {
  readonly text: string;
  /**
   * The engine that produced `text` (`apertium+offline` when a pivot route used two); undefined only
   * for blank text, which no engine is asked about.
   */
  readonly engine: string | undefined;
  /** True when only the start of the text was translated (the fallback's 500-character limit). */
  readonly truncated: boolean;
  /**
   * True when a weaker engine answered: an engine earlier in the chain that serves the pair failed or
   * had its breaker open (on a pivot route, on either hop). Not set when the earlier engines are not
   * configured or do not serve the pair: then the answer is the best this deployment gives.
   */
  readonly fallback: boolean;
  readonly detectedSource?: string;
  readonly attempts: readonly Attempt[];
  /** The translation's steps: one for the pair itself, two through a pivot language; empty for blank text. */
  readonly route: readonly RouteStep[];
  /** Words left untranslated, when the engine says (Apertium); on a pivot route, the larger hop's count. */
  readonly unknownWords?: number;
}

export interface EngineStatus {
  readonly slot: SlotName;
  readonly engine?: EngineName;
  readonly configured: boolean;
  /** Absent when not configured. */
  readonly breaker?: BreakerState;
  readonly lastError?: { readonly reason: string; readonly at: string };
  readonly successes: number;
  readonly failures: number;
}

/**
 * Why one text of a batch was not translated: no engine serves the pair, directly or through a pivot
 * language (UnsupportedPairError), or engines that serve it failed (AllEnginesFailedError).
 */
export type ChainItemError = UnsupportedPairError | AllEnginesFailedError;

/** One text's answer within a batch: its translation, or its own error. */
export type ChainItem = ChainResult | ChainItemError;

export interface TranslationChain {
  /**
   * Translates the texts of one pair, each on its own: answers one item per text, in order, a text
   * that failed with its own error. Throws only the signal's reason when aborted.
   */
  translateBatch(request: TranslateBatchRequest, signal?: AbortSignal): Promise<readonly ChainItem[]>;
  /**
   * One text, as a batch of one: throws its UnsupportedPairError or AllEnginesFailedError, or the
   * signal's reason when aborted.
   */
  translate(request: TranslateRequest, signal?: AbortSignal): Promise<ChainResult>;
  /** Per slot, in chain order, for status pages. */
  status(): EngineStatus[];
  /** The pairs the engines serve, as last learned; start() it to keep it fresh. */
  readonly directory: PairDirectory;
  /** Every pair between listed languages that some engine or a two-hop route serves now. */
  servedPairs(): ServedPair[];
  /**
   * Whether an engine earlier in the chain than `engine` (the weakest of a pivot's `a+b`) is
   * configured, has no open breaker and serves the pair as far as is known: a `fallback` result
   * could be bettered now (issue #19).
   */
  strongerEngineHealthy(engine: string, source: string, target: string): boolean;
  /**
   * The per-request controls the engine of a result (`engine`, one name: a pivot's `a+b` got none)
   * applied into `target`.
   */
  controlsApplied(engine: string, target: string): EngineControls;
}

/**
 * MyMemory truncates at 500 characters by itself and says so, so the fallback gets one piece. The
 * local and offline engines are slower per call (CPU), so they get longer timeouts and fewer retries:
 * an offline model failing once will fail again.
 */
const SLOT_DEFAULTS: Record<SlotName, { split: boolean; resilience: Partial<ResilienceOptions> }> = {
  // A dictionary conversion in the process: what fails once fails again.
  variant: { split: true, resilience: { maxRetries: 0 } },
  primary: { split: true, resilience: {} },
  fallback: { split: false, resilience: { maxRetries: 1 } },
  local: { split: true, resilience: { timeoutMs: 30_000, maxRetries: 1 } },
  apertium: { split: true, resilience: { timeoutMs: 30_000, maxRetries: 1 } },
  offline: { split: true, resilience: { timeoutMs: 60_000, maxRetries: 0 } },
};

const PAIR_DEFAULTS: PairDirectoryOptions = { refreshMs: 5 * 60_000, timeoutMs: 10_000, retryMs: 10_000 };

interface Slot {
  readonly name: SlotName;
  readonly engine: ResilientEngine | undefined;
  readonly split: boolean;
  successes: number;
  failures: number;
  lastError?: { reason: string; at: string };
}

type Translated = {
  readonly text: string;
  readonly truncated: boolean;
  readonly detectedSource?: string;
  readonly unknownWords?: number;
};

/** One pair's go through the slots: the text and the engine when one succeeded. */
type HopResult = (Translated & { readonly engine: EngineName; readonly fallback: boolean }) | undefined;

const NEVER_ABORTED = new AbortController().signal;

const NO_CONTROLS: EngineControls = { formality: false, context: false };

/** What one chain's calls work on: its slots in order, the pairs each engine serves, its metrics. */
interface ChainParts {
  readonly slots: readonly Slot[];
  readonly directory: PairDirectory;
  readonly metrics: ReturnType<typeof chainMetrics>;
  readonly remedies: NonNullable<ChainOptions['remedies']>;
}

export function createChain(engines: ChainEngines): TranslationChain {
  const parts = chainParts(engines);
  const { slots, directory } = parts;
  let listed: { from: readonly (PairCoverage | undefined)[]; pairs: ServedPair[] } | undefined;
  const translateBatch = (request: TranslateBatchRequest, signal = NEVER_ABORTED) =>
    withSpan(
      'translation chain',
      {
        'tp.source_language': request.source,
        'tp.target_language': request.target,
        'tp.texts': request.texts.length,
      },
      async (span) => {
        const items = await translateThrough(parts, request, signal);
        const engines = new Set(items.flatMap((item) => (item instanceof Error ? [] : (item.engine ?? []))));
        if (engines.size > 0) span.setAttribute('tp.engine', [...engines].join(','));
        return items;
      },
    );
  return {
    directory,
    translateBatch,
    async translate({ text, ...pair }, signal) {
      const [item] = await translateBatch({ ...pair, texts: [text] }, signal);
      if (item instanceof Error || item === undefined) throw item;
      return item;
    },
    status() {
      return slots.map((slot) => ({
        slot: slot.name,
        ...(slot.engine ? { engine: slot.engine.name, breaker: slot.engine.breakerState() } : {}),
        configured: slot.engine !== undefined,
        ...(slot.lastError ? { lastError: { ...slot.lastError } } : {}),
        successes: slot.successes,
        failures: slot.failures,
      }));
    },
    strongerEngineHealthy: (engine, source, target) => strongerHealthy(parts, engine, source, target),
    controlsApplied(engine, target) {
      const used = slots.find((slot) => slot.engine?.name === engine)?.engine;
      return used?.controls?.(target) ?? NO_CONTROLS;
    },
    servedPairs() {
      // Listing walks every pair: done again only when an engine's list changed.
      const known = slots.flatMap(({ engine }) =>
        engine ? [{ name: engine.name, coverage: directory.coverage(engine.name) }] : [],
      );
      if (!listed || known.some(({ coverage }, i) => coverage !== listed?.from[i])) {
        listed = { from: known.map(({ coverage }) => coverage), pairs: servedPairs(known) };
      }
      return listed.pairs;
    },
  };
}

function strongerHealthy(parts: ChainParts, engine: string, source: string, target: string): boolean {
  const names = engine.split('+');
  const weakest = Math.max(...names.map((name) => parts.slots.findIndex((s) => s.engine?.name === name)));
  // A pivot's hops are other pairs: any healthy earlier engine might serve the pair itself.
  const pair = names.length === 1 ? { source, target } : undefined;
  return parts.slots
    .slice(0, Math.max(weakest, 0))
    .some(
      ({ engine: earlier }) =>
        earlier !== undefined &&
        earlier.breakerState() !== 'open' &&
        (!pair || parts.directory.coverage(earlier.name)?.serves(pair.source, pair.target) !== false),
    );
}

/** Each slot's engine wrapped with its resilience settings, the pair directory and the metrics. */
function chainParts(engines: ChainEngines): ChainParts {
  const options = engines.options ?? {};
  // The breaker states are read at scrape time, once the slots below exist.
  const metrics = chainMetrics(options.metrics, () =>
    slots.flatMap(({ engine }) => (engine ? [{ engine: engine.name, state: engine.breakerState() }] : [])),
  );
  const slots: Slot[] = SLOTS.map((name) => {
    const engine = engines[name];
    const own = options.slots?.[name];
    const resilience = { ...SLOT_DEFAULTS[name].resilience, ...options.resilience, ...own?.resilience };
    const changed = (state: BreakerState) => metrics.breakerChanged(engine?.name ?? name, state);
    return {
      name,
      engine: engine && withResilience(engine, resilience, changed),
      split: own?.split ?? SLOT_DEFAULTS[name].split,
      successes: 0,
      failures: 0,
    };
  });
  const configured = SLOTS.flatMap((name) => engines[name] ?? []);
  const directory = new PairDirectory(configured, { ...PAIR_DEFAULTS, ...options.pairs });
  return { slots, directory, metrics, remedies: options.remedies ?? (() => []) };
}

/** One text's way through the chain: its text and every attempt made for it. */
interface Work {
  readonly text: string;
  readonly attempts: Attempt[];
}

/**
 * The requested pair through the slots; the texts no engine serves, through pivot languages. Each
 * text keeps its own attempts, and ends with its own result or error.
 */
async function translateThrough(
  parts: ChainParts,
  request: TranslateBatchRequest,
  signal: AbortSignal,
): Promise<ChainItem[]> {
  signal.throwIfAborted();
  const { source, target, texts } = request;
  const works: Work[] = texts.map((text) => ({ text, attempts: [] }));
  const items: (ChainItem | undefined)[] = texts.map((text) =>
    text.trim() === '' ? blank(text) : undefined,
  );
  const open = works.flatMap((_, index) => (items[index] ? [] : [index]));
  if (open.length === 0) return items as ChainItem[];
  const direct = await tryHop(parts, request, pick(works, open), signal);
  open.forEach((index, k) => {
    const done = direct[k];
    const work = works[index] as Work;
    if (done) items[index] = finish(done, [{ source, target, engine: done.engine }], work.attempts);
  });
  // Pivot only texts no engine serves itself: engines that serve the pair but failed would most
  // likely fail the hops too.
  let refused = open.filter((index) => !items[index] && onlyRefused((works[index] as Work).attempts));
  if (refused.length > 0 && source !== 'auto') {
    const coverages = parts.slots.map(({ engine }) => engine && parts.directory.coverage(engine.name));
    for (const via of pivotLanguages(coverages, source, target)) {
      const pivots = await tryPivot(parts, request, via, pick(works, refused), signal);
      refused.forEach((index, k) => {
        const pivot = pivots[k];
        if (pivot) items[index] = finishPivot(pivot.one, pivot.two, (works[index] as Work).attempts);
      });
      refused = refused.filter((index) => !items[index]);
      if (refused.length === 0) break;
    }
  }
  return items.map((item, index) => item ?? failure(parts, request, (works[index] as Work).attempts));
}

const pick = <T>(all: readonly T[], indexes: readonly number[]): T[] => indexes.map((i) => all[i] as T);

const onlyRefused = (attempts: readonly Attempt[]): boolean =>
  attempts.every(({ outcome }) => outcome === 'unsupported' || outcome === 'skipped');

/** Blank text is answered as it is: no engine is asked about it. */
const blank = (text: string): ChainResult => ({
  text,
  engine: undefined,
  truncated: false,
  fallback: false,
  attempts: [],
  route: [],
});

/**
 * Refused by every configured engine, or none configured: no retry can help (503 is for engines
 * that serve the pair and failed).
 */
function failure(
  parts: ChainParts,
  { source, target }: TranslateBatchRequest,
  attempts: readonly Attempt[],
): ChainItemError {
  return onlyRefused(attempts)
    ? new UnsupportedPairError(source, target, attempts, parts.remedies(source, target))
    : new AllEnginesFailedError(attempts);
}

/** Runs one configured engine on the texts, unless its breaker is open. */
async function run(engine: ResilientEngine, slot: Slot, input: EngineInput, signal: AbortSignal) {
  const attributes = {
    'tp.engine': engine.name,
    'tp.slot': slot.name,
    'tp.source_language': input.source,
    'tp.target_language': input.target,
    'tp.texts': input.texts.length,
  };
  return withSpan(`engine attempt ${engine.name}`, attributes, async (span) => {
    const started = performance.now();
    const outcomes: EngineOutcome[] =
      engine.breakerState() === 'open'
        ? input.texts.map(() => ({ ok: false, breakerOpen: true, reason: 'circuit breaker open' }))
        : await translateWithEngine(engine, input, slot.split, signal);
    const kinds = new Set(outcomes.map(attemptOutcome));
    span.setAttribute('tp.outcome', kinds.size === 1 ? [...kinds].join('') : 'mixed');
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed && !failed.ok) span.setStatus({ code: 2, message: failed.reason });
    return { outcomes, ms: performance.now() - started };
  });
}

/** One text's attempt into the metrics (with its pair) and the slot's own counts. */
function record(
  { metrics, directory }: ChainParts,
  slot: Slot,
  engine: EngineName,
  attempt: { outcome: AttemptOutcome; reason: string | undefined; ms: number },
  { source, target }: { source: string; target: string },
) {
  const { outcome, reason, ms } = attempt;
  if (outcome === 'unsupported') return; // a refusal says nothing about the engine's health
  // Only pairs the engine lists become label values, so the label set stays bounded.
  const listed = directory.coverage(engine)?.serves(source, target) === true;
  metrics.record(engine, outcome as CallOutcome, ms / 1000, listed ? `${source}-${target}` : 'other');
  if (outcome === 'ok') slot.successes += 1;
  if (outcome === 'failed') {
    slot.failures += 1;
    slot.lastError = { reason: reason ?? 'failed', at: new Date().toISOString() };
  }
}

/** Where one text stands on one pair while the slots are tried. */
interface HopState {
  /** Translated in full: the slots after stop for this text. */
  done?: NonNullable<HopResult>;
  /** A truncated answer, kept as the last resort (issue #19): a later engine may do the whole text. */
  truncated?: NonNullable<HopResult>;
  /**
   * An answer identical to the input is suspicious from one engine (echoing is a known failure), but
   * when a second engine agrees, the text is most likely a name or code that stays as it is.
   */
  echoedBy?: EngineName;
  /** A stronger engine that serves the pair failed before (issue #19). */
  weaker: boolean;
}

/**
 * Tries the slots in order on one pair, each slot with the texts still untranslated. For the
 * requested pair (`hop` undefined) every slot shows in each text's attempts, refusals included; on a
 * pivot hop only the engines that serve it are tried.
 */
async function tryHop(
  parts: ChainParts,
  pair: Omit<TranslateBatchRequest, 'texts'>,
  works: readonly Work[],
  signal: AbortSignal,
  hop?: { source: string; target: string },
): Promise<HopResult[]> {
  const { slots, directory } = parts;
  const states: HopState[] = works.map(() => ({ weaker: false }));
  for (const slot of slots) {
    signal.throwIfAborted();
    const pending = states.flatMap((state, index) => (state.done ? [] : [index]));
    if (pending.length === 0) break;
    const { engine } = slot;
    const refusal = refusalOf(slot, directory, pair);
    if (refusal || !engine) {
      if (!hop) for (const index of pending) (works[index] as Work).attempts.push(refusal ?? skipped(slot));
      continue;
    }
    const texts = pending.map((index) => (works[index] as Work).text);
    const { outcomes, ms } = await run(engine, slot, { ...pair, texts }, signal);
    let unsupported = false;
    pending.forEach((index, k) => {
      const result = outcomes[k] as EngineOutcome;
      const state = states[index] as HopState;
      const { outcome, reason, done } = judge(result, state.echoedBy);
      unsupported ||= outcome === 'unsupported';
      record(parts, slot, engine.name, { outcome, reason, ms: ms / pending.length }, pair);
      const attempt = { slot: slot.name, engine: engine.name, outcome, ms: Math.round(ms), ...hop };
      (works[index] as Work).attempts.push(reason ? { ...attempt, reason } : attempt);
      settle(state, result, { outcome, ...(done ? { done } : {}) }, engine.name);
    });
    if (unsupported) directory.stale(engine.name);
  }
  return states.map((state) => state.done ?? state.truncated);
}

const skipped = (slot: Slot): Attempt => ({
  slot: slot.name,
  outcome: 'skipped',
  reason: 'not configured',
  ms: 0,
});

/** The attempt of a slot whose engine's list lacks the pair (it is not called), or undefined. */
function refusalOf(
  { name, engine }: Slot,
  directory: PairDirectory,
  { source, target }: { source: string; target: string },
): Attempt | undefined {
  if (!engine || directory.coverage(engine.name)?.serves(source, target) !== false) return undefined;
  const reason = `no ${engine.name} pair for ${source} -> ${target}`;
  return { slot: name, engine: engine.name, outcome: 'unsupported', reason, ms: 0 };
}

/** What one attempt leaves for its text: done, a truncated last resort, an echo or a weaker engine. */
function settle(
  state: HopState,
  result: EngineOutcome,
  { outcome, done }: { outcome: AttemptOutcome; done?: Translated },
  engine: EngineName,
): void {
  if (done) {
    const answer = { ...done, engine, fallback: state.weaker };
    if (!done.truncated) {
      state.done = answer;
      return;
    }
    state.truncated ??= answer;
  }
  // An echo is not a weaker engine's sign: the next engine that agrees gives the same text.
  if (!result.ok && result.unchanged) state.echoedBy ??= engine;
  else if (outcome === 'failed' || outcome === 'breaker-open') state.weaker = true;
}

/**
 * Two hops through `via`; the first hop's text is what the second translates. A glossary's terms
 * are masked before the first hop and replaced after the second: no engine sees them. Answers each
 * text's two hops, or undefined where either failed.
 */
async function tryPivot(
  parts: ChainParts,
  request: TranslateBatchRequest,
  via: string,
  works: readonly Work[],
  signal: AbortSignal,
) {
  const { glossary, source, target } = request;
  const terms = glossary && { scanner: glossary.scanner, targets: glossary.entries.map((e) => e.target) };
  const masked = works.map(({ text }) => (terms ? mask(text, terms) : undefined));
  const first = { source, target: via };
  const ones = await tryHop(
    parts,
    first,
    works.map((work, k) => ({ ...work, text: masked[k]?.text ?? work.text })),
    signal,
    first,
  );
  const through = ones.flatMap((one, k) => (one ? [k] : []));
  const second = { source: via, target };
  const twos = await tryHop(
    parts,
    second,
    through.map((k) => ({
      text: (ones[k] as NonNullable<HopResult>).text,
      attempts: (works[k] as Work).attempts,
    })),
    signal,
    second,
  );
  const pivots: ({ one: PivotHop; two: PivotHop } | undefined)[] = works.map(() => undefined);
  through.forEach((k, j) => {
    const two = twos[j];
    if (!two) return;
    const spans = masked[k]?.spans;
    const text = spans ? restore(two.text, spans).text : two.text;
    pivots[k] = {
      one: { ...(ones[k] as NonNullable<HopResult>), ...first },
      two: { ...two, text, ...second },
    };
  });
  return pivots;
}

type PivotHop = NonNullable<HopResult> & { source: string; target: string };

/** The attempt's outcome, and the text to return if it is one. */
function judge(
  result: EngineOutcome,
  echoedBy: EngineName | undefined,
): { outcome: AttemptOutcome; reason?: string; done?: Translated } {
  if (result.ok) return { outcome: 'ok', done: result };
  if (result.unchanged && echoedBy) {
    return { outcome: 'ok', reason: `unchanged, as ${echoedBy} also answered`, done: result.unchanged };
  }
  if (result.unsupported) return { outcome: 'unsupported', reason: result.reason };
  return { outcome: result.breakerOpen ? 'breaker-open' : 'failed', reason: result.reason };
}

function finish(
  result: Translated & { readonly fallback: boolean },
  route: RouteStep[],
  attempts: Attempt[],
): ChainResult {
  const engines = [...new Set(route.map((step) => step.engine))];
  return {
    text: result.text,
    engine: engines.join('+'),
    truncated: result.truncated,
    fallback: result.fallback,
    ...(result.detectedSource ? { detectedSource: result.detectedSource } : {}),
    attempts,
    route,
    ...(result.unknownWords !== undefined ? { unknownWords: result.unknownWords } : {}),
  };
}

function finishPivot(one: PivotHop, two: PivotHop, attempts: Attempt[]): ChainResult {
  const counts = [one.unknownWords, two.unknownWords].filter((n): n is number => n !== undefined);
  return finish(
    {
      text: two.text,
      truncated: one.truncated || two.truncated,
      fallback: one.fallback || two.fallback,
      ...(counts.length > 0 ? { unknownWords: Math.max(...counts) } : {}),
    },
    [one, two].map(({ source, target, engine }) => ({ source, target, engine })),
    attempts,
  );
}

/** An engine outcome as the attempt span's `tp.outcome`. */
function attemptOutcome(result: EngineOutcome): string {
  if (result.ok) return 'ok';
  if (result.unsupported) return 'unsupported';
  return result.breakerOpen ? 'breaker-open' : 'failed';
}
