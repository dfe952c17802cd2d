import { performance } from 'node:perf_hooks';

import { AppError, assertTextLength } from '@tp/runtime';
import {
  hotCacheHash,
  languageCode,
  segmentText,
  type HotCache,
  type Segmented,
  type TextFormat,
} from '@tp/translation';
import type { TranslationResult } from '@tp/service-contracts';
import { Counter, type Registry } from 'prom-client';

import {
  AllEnginesFailedError,
  UnsupportedPairError,
  type ChainResult,
  type TranslationChain,
} from '../chain/index.js';
import type {
  CompletedTranslation,
  CompletedTranslationSink,
  EventOrigin,
} from './completed-translations.outbox.js';
import type { LanguageDetector } from './detect-language.js';
import type { GlossaryLookup, PairGlossary } from '../glossary/glossary-directory.js';
import type { Formality } from '../engines/engine.js';
import { InFlight } from './in-flight.js';
import { joinSegments } from './join-segments.js';

export interface TranslateTextInput {
  readonly text: string;
  /** A language code (any case, `_` or `-`), or `auto`. */
  readonly source: string;
  readonly target: string;
  /** How the text is written; default `text`. */
  readonly format?: TextFormat;
  readonly glossary?: string;
  readonly formality?: Formality;
  readonly context?: string;
}

/** Per-request controls: a stored glossary by id or name (checked), the formality, a context. */
interface Controls {
  readonly glossary?: string;
  /** Absent for `default`. */
  readonly formality?: Exclude<Formality, 'default'>;
  readonly context?: string;
}

/** Texts of one request, translated each on its own (POST /translate/batch). */
export interface TranslateBatchInput {
  readonly texts: readonly string[];
  /** A language code (any case, `_` or `-`), or `auto`; for every text. */
  readonly source: string;
  readonly target: string;
  /** How every text is written; default `text`. */
  readonly format?: TextFormat;
  /** A stored glossary's id or name: it must be the pair's (400 otherwise). */
  readonly glossary?: string;
  readonly formality?: Formality;
  readonly context?: string;
}

/** One text's answer within a batch: its translation, or its own error (the others keep theirs). */
export type BatchItem = TranslationResult | AppError;

/** The answer of POST /translate (its contract: @tp/service-contracts). */
export type { TranslationResult };

export interface TranslateTextDeps {
  /** Without `strongerEngineHealthy`, a cached fallback result is served like any other. */
  readonly chain: Pick<TranslationChain, 'translateBatch'> &
    Partial<Pick<TranslationChain, 'strongerEngineHealthy' | 'controlsApplied'>>;
  readonly cache: Pick<HotCache, 'readMany' | 'storeMany'>;
  readonly detector: Pick<LanguageDetector, 'detect'>;
  readonly sink: CompletedTranslationSink;
  /** The most characters one request may carry, all its texts together. */
  readonly maxTextChars: number;
  readonly metrics?: Registry;
  /** The glossaries per language pair; none applied without it. */
  readonly glossaries?: GlossaryLookup;
}

export interface RequestOrigin extends EventOrigin {
  /** Fires when the caller went away: the chain stops. */
  readonly signal?: AbortSignal;
  /**
   * `false` when the caller publishes the result itself (the engine consumer), so it is not also
   * kept as a free-text (`text`) translation. Default true.
   */
  readonly recordResult?: boolean;
}

/** The most distinct texts translated at once that identical requests can join (a bound on that map). */
const MAX_IN_FLIGHT = 10_000;

/** A checked request: our language codes, `auto` for an unknown source, texts within the limit. */
interface CheckedBatch {
  readonly texts: readonly string[];
  readonly source: string;
  readonly target: string;
  readonly auto: boolean;
  readonly format: TextFormat;
  readonly controls: Controls;
}

/** One text of a checked request. */
interface CheckedRequest {
  readonly text: string;
  readonly source: string;
  readonly target: string;
  readonly auto: boolean;
  readonly format: TextFormat;
  readonly controls: Controls;
}

/** An answer but for its duration, which each caller (joined or not) adds. */
type Translation = Omit<TranslationResult, 'duration'>;

/** A run the chain translated, with its outcome. */
interface Done {
  readonly run: OwnRun;
  readonly outcome: ChainOutcome;
}

/** A run on its way through the chain: the source it goes from and its segments. */
interface PairRun {
  readonly run: OwnRun;
  readonly source: string;
  readonly segmented: Segmented;
}

/** A text this request runs itself (no identical run was in flight): settled by runBatch. */
interface OwnRun {
  readonly request: CheckedRequest;
  readonly key: CacheKey;
  /** Aborts when every caller waiting for this text has gone. */
  readonly signal: AbortSignal;
  /** Keeps the run joinable until its cache write ends (InFlight). */
  readonly keepUntil: (done: Promise<unknown>) => void;
  readonly resolve: (translation: Translation) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The translation use case, as its steps, for each text of a request: an identical run in flight,
 * joined; else a run of its own, which reads the hot cache. The request's own runs read the cache
 * together and go through the engine chain together (one batch per source language, detecting the
 * source for `auto`); each answers, stores a complete result in the cache and hands it to
 * persistence (neither of which the answer waits for). A text that fails gets its own error; the
 * others keep their translations.
 */
export class TranslateText {
  private readonly lookups?: Counter<'result'>;
  private readonly inFlight = new InFlight<Translation>(MAX_IN_FLIGHT);

  constructor(private readonly deps: TranslateTextDeps) {
    if (deps.metrics) {
      this.lookups = new Counter({
        name: 'translation_cache_lookups_total',
        help: 'Hot cache lookups by result (hit, miss)',
        labelNames: ['result'] as const,
        registers: [deps.metrics],
      });
    }
  }

  /** One text: a batch of one, its error thrown. */
  async execute(input: TranslateTextInput, origin: RequestOrigin): Promise<TranslationResult> {
    const { text, ...rest } = input;
    const [item] = await this.executeBatch({ ...rest, texts: [text] }, origin);
    if (item instanceof Error || item === undefined) throw item;
    return item;
  }

  /**
   * The texts of one request, each answered in order with its translation or its own AppError.
   * Throws for the request as a whole: a bad language code (400), too many characters in all (413),
   * or the signal's reason when the caller went away.
   */
  async executeBatch(input: TranslateBatchInput, origin: RequestOrigin): Promise<BatchItem[]> {
    const started = performance.now();
    const request = checkedBatch(input, this.deps.maxTextChars);
    if (request.controls.glossary) await this.checkGlossary(request.controls.glossary, request);
    const settled = await this.translateAll(request, origin);
    const duration = Math.round(performance.now() - started) / 1000;
    return settled.map((item) => (item instanceof Error ? item : { ...item, duration }));
  }

  private async translateAll(
    batch: CheckedBatch,
    origin: RequestOrigin,
  ): Promise<(Translation | AppError)[]> {
    const requests = batch.texts.map((text) => ({ ...batch, text }));
    const keys = await this.cacheKeys(requests);
    const own: OwnRun[] = [];
    // Identical texts in flight at the same time share one run (one cache read, one engine call):
    // this request's texts no run holds yet become its own runs, translated together below.
    const answers = requests.map((request, index) => {
      const key = keys[index];
      // Nothing to translate: no engine call, nothing cached or kept.
      if (!key) return Promise.resolve(asIs(request, request.source));
      // The glossary named is not part of the cache key (its version is), but the answer reports it.
      const { glossary } = request.controls;
      return this.inFlight.run(
        glossary ? `${hotCacheHash(key)}\u0000${glossary}` : hotCacheHash(key),
        origin.signal,
        (signal, keepUntil) =>
          new Promise<Translation>((resolve, reject) => {
            own.push({ request, key, signal, keepUntil, resolve, reject });
          }),
      );
    });
    // Handled from now on: a run that fails while this request's runs are still going is not an
    // unhandled rejection (which ends the process).
    const settling = Promise.allSettled(answers);
    if (own.length > 0) await this.runBatch(own, origin);
    const settled = await settling;
    origin.signal?.throwIfAborted();
    return settled.map((outcome) => {
      if (outcome.status === 'fulfilled') return outcome.value;
      if (outcome.reason instanceof AppError) return outcome.reason;
      throw outcome.reason;
    });
  }

  /** A glossary named by the request must exist and be one of the pair's (`auto`: into the target). */
  private async checkGlossary(idOrName: string, { source, target, auto }: CheckedBatch): Promise<void> {
    const pairs = (await this.deps.glossaries?.named(idOrName)) ?? [];
    if (pairs.some((pair) => pair.target === target && (auto || pair.source === source))) return;
    const message =
      pairs.length === 0
        ? `no glossary ${idOrName}`
        : `glossary ${idOrName} is not for ${source} -> ${target}`;
    throw new AppError('VALIDATION_FAILED', `body.glossary: ${message}`, {
      issues: [{ path: 'body.glossary', message, code: 'invalid_value' }],
    });
  }

  /** What the engine of an answer did with the request's controls (none given: nothing said). */
  private report(
    controls: Controls,
    engine: string,
    target: string,
    glossaryVersion: number,
  ): Translation['controls'] {
    const { glossary, formality, context } = controls;
    if (!glossary && !formality && !context) return undefined;
    const applied = this.deps.chain.controlsApplied?.(engine, target);
    const said = (yes: boolean | undefined): 'applied' | 'ignored' => (yes ? 'applied' : 'ignored');
    return {
      ...(glossary ? { glossary: said(glossaryVersion > 0) } : {}),
      ...(formality ? { formality: said(applied?.formality) } : {}),
      ...(context ? { context: said(applied?.context) } : {}),
    };
  }

  /** Each text's cache key, or none when there is nothing to translate (blank, or into its source). */
  private cacheKeys(requests: readonly CheckedRequest[]): Promise<(CacheKey | undefined)[]> {
    return Promise.all(
      requests.map((request) =>
        request.text.trim() === '' || request.source === request.target ? undefined : this.cacheKey(request),
      ),
    );
  }

  /**
   * The runs of one request, for every identical request that joins them: the hot cache, read once
   * for all of them (a run that ended before these were registered stored its result there first:
   * InFlight keeps a run joinable until its cache write ends), the chain, the answers, then the
   * store and persistence. Settles every run; a run fails alone.
   */
  private async runBatch(runs: readonly OwnRun[], origin: RequestOrigin): Promise<void> {
    const { signal, release } = everyAborted(runs.map((run) => run.signal));
    try {
      const stored = await this.deps.cache.readMany(runs.map((run) => run.key));
      const open: PairRun[] = [];
      runs.forEach((run, index) => {
        const { request } = run;
        const hit = this.usable(stored[index], request.target);
        this.lookups?.inc({ result: hit ? 'hit' : 'miss' });
        if (hit) return run.resolve(this.withReport(fromCache(hit, request), request, run.key));
        const segmented = segmentOrReject(run);
        if (!segmented) return;
        // `auto`: our own guess when it is trustworthy; otherwise the engines that can detect do.
        const words = request.format === 'text' ? request.text : segmented.segments.join('\n');
        const source = request.auto ? (this.deps.detector.detect(words) ?? 'auto') : request.source;
        if (source === request.target) return run.resolve(asIs(request, source));
        open.push({ run, source, segmented });
      });
      // One chain batch per source language (a batch is one pair).
      const bySource = new Map<string, PairRun[]>();
      for (const entry of open) {
        const group = bySource.get(entry.source) ?? [];
        group.push(entry);
        bySource.set(entry.source, group);
      }
      await Promise.all([...bySource].map(([source, group]) => this.runPair(source, group, origin, signal)));
    } catch (err) {
      for (const run of runs) run.reject(err);
    } finally {
      release();
    }
  }

  /**
   * The runs of one source language through the chain, their segments in one batch, each run
   * settled with its text put back together or the error of a segment.
   */
  private async runPair(
    source: string,
    runs: readonly PairRun[],
    origin: RequestOrigin,
    signal: AbortSignal,
  ): Promise<void> {
    const [first] = runs;
    if (!first) return;
    const { target } = first.run.request;
    // A glossary applies when the source is known (or detected by us); DeepL needs it too.
    const { glossaries } = this.deps;
    const pair: PairGlossary =
      glossaries && source !== 'auto' ? await glossaries.forPair(source, target) : { version: 0 };
    const texts = runs.flatMap(({ segmented }) => segmented.segments);
    const { formality, context } = first.run.request.controls;
    const items =
      texts.length > 0
        ? await this.deps.chain.translateBatch(
            {
              texts,
              source,
              target,
              ...(pair.glossary ? { glossary: pair.glossary } : {}),
              ...(formality ? { formality } : {}),
              ...(context ? { context } : {}),
            },
            signal,
          )
        : [];
    let next = 0;
    const done: Done[] = [];
    for (const { run, segmented } of runs) {
      const result = joinSegments(items.slice(next, (next += segmented.segments.length)), segmented);
      if (result instanceof Error) {
        run.reject(source === 'auto' ? undetectable(result) : result);
        continue;
      }
      const actualSource = source === 'auto' ? (result.detectedSource ?? 'auto') : source;
      done.push({ run, outcome: { result, actualSource } });
    }
    if (done.length === 0) return;
    // Kept together: the request's translations of this pair travel as one event.
    if (origin.recordResult !== false) {
      const completed = done.map(({ run, outcome }) => completedTranslation(run.request, outcome));
      this.deps.sink.record(completed, {
        correlationId: origin.correlationId,
        causationId: origin.causationId,
      });
    }
    // The answers do not wait for the cache write (a saving: a failed one is a later miss); each run
    // stays joinable until it has landed, so an identical request coming meanwhile joins rather
    // than reading the cache before the write and translating again.
    const storing = this.store(done, target, pair.version).catch(() => false);
    for (const { run, outcome } of done) {
      run.keepUntil(storing);
      run.resolve(this.withReport(chainAnswer(outcome, run.request), run.request, run.key));
    }
  }

  /** An answer with the report of the request's controls, when it gave any. */
  private withReport(answer: Translation, request: CheckedRequest, key: CacheKey): Translation {
    const controls = this.report(request.controls, answer.engine, request.target, key.glossaryVersion ?? 0);
    return controls ? { ...answer, controls } : answer;
  }

  /**
   * The cache key; the glossary version is part of it, so an edited glossary is never answered from
   * the cache, and so are the format and the formality and context asked.
   */
  private async cacheKey({ text, source, target, format, controls }: CheckedRequest): Promise<CacheKey> {
    const { formality, context } = controls;
    const asked = { format, ...(formality ? { formality } : {}), ...(context ? { context } : {}) };
    const glossaryVersion = (await this.deps.glossaries?.cacheVersion(source, target)) ?? 0;
    return { source, target, text, glossaryVersion, ...asked };
  }

  /**
   * Stores each complete result under the key asked for and, for `auto`, under the language found, so
   * a later request naming that language hits too (one Redis round trip for all, or nothing while
   * Redis is down). A truncated result is not stored.
   */
  private async store(done: readonly Done[], target: string, applied: number): Promise<void> {
    const stores = await Promise.all(
      done.map(async ({ run: { key }, outcome }) => {
        const found = cachedEntry(outcome);
        if (!found) return [];
        const entry = { ...found, truncated: false };
        // The second key is a saving only: a glossary that cannot be read now just leaves it out.
        const alsoFound =
          found.source !== key.source &&
          (await appliesToPair(this.deps.glossaries, found.source, target, applied).catch(() => false));
        const input = alsoFound ? [key, { ...key, source: found.source, glossaryVersion: applied }] : [key];
        return input.map((k) => ({ input: k, entry }));
      }),
    );
    await this.deps.cache.storeMany(stores.flat());
  }

  /**
   * A cached entry, unless it is a fallback result while a stronger engine is healthy: then the chain
   * runs again, so a re-request (the read path's, issue #19) can replace a weak translation.
   */
  private usable(hit: CachedTranslation | undefined, target: string): CachedTranslation | undefined {
    if (!hit?.fallback) return hit;
    return this.deps.chain.strongerEngineHealthy?.(hit.engine, hit.source, target) ? undefined : hit;
  }
}

/** Our language codes for the request, or 400; 413 TEXT_TOO_LONG over the limit, all texts together. */
function checkedBatch(input: TranslateBatchInput, maxTextChars: number): CheckedBatch {
  const source = languageCode('source', input.source);
  const target = languageCode('target', input.target);
  assertTextLength(input.texts.length === 1 ? (input.texts[0] ?? '') : input.texts.join(''), maxTextChars);
  const { glossary, formality, context } = input;
  const controls: Controls = {
    ...(glossary ? { glossary } : {}),
    ...(formality && formality !== 'default' ? { formality } : {}),
    ...(context ? { context } : {}),
  };
  return {
    texts: input.texts,
    source,
    target,
    auto: source === 'auto',
    format: input.format ?? 'text',
    controls,
  };
}

/** A run's text cut into segments by its format, or none: the run is refused (MARKUP_TOO_COMPLEX). */
function segmentOrReject(run: OwnRun): Segmented | undefined {
  try {
    return segmentText(run.request.text, run.request.format);
  } catch (err) {
    run.reject(err);
    return undefined;
  }
}

/**
 * A signal that aborts once every one of `signals` has: the runs of a batch share one chain call,
 * which stops only when nobody waits for any of them. `release` removes its listeners (a caller's
 * signal may live as long as the process, as the consumers' stop signal does).
 */
function everyAborted(signals: readonly AbortSignal[]): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  let left = signals.length;
  const onAbort = () => {
    left -= 1;
    if (left === 0) controller.abort(signals[0]?.reason);
  };
  for (const signal of signals) {
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  const release = () => {
    for (const signal of signals) signal.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, release };
}

/** The text as it is: nothing to translate, or a detected source that is the target. */
function asIs({ text, target, auto }: CheckedRequest, source: string): Translation {
  return {
    translatedText: text,
    source,
    target,
    ...(auto && source !== 'auto' ? { detectedSource: source } : {}),
    engine: 'none',
    cached: false,
    truncated: false,
    fallback: false,
    attempts: [],
  };
}

/** Whether a result made with glossary version `applied` is right for the pair (an engine-detected source had none). */
async function appliesToPair(
  glossaries: GlossaryLookup | undefined,
  source: string,
  target: string,
  applied: number,
): Promise<boolean> {
  if (!glossaries) return true;
  return (await glossaries.forPair(source, target)).version === applied;
}

/** What the chain produced for a run, and the source it used. */
type ChainOutcome = { readonly result: ChainResult; readonly actualSource: string };
type CacheKey = Parameters<HotCache['read']>[0];
type CachedTranslation = NonNullable<Awaited<ReturnType<HotCache['read']>>>;

/** The hot-cache entry of a chain result; none for a truncated one, which is never cached. */
function cachedEntry({ result, actualSource }: ChainOutcome): CachedTranslation | undefined {
  if (result.truncated) return undefined;
  return {
    translatedText: result.text,
    source: actualSource,
    engine: result.engine ?? 'none',
    cachedAt: new Date().toISOString(),
    fallback: result.fallback,
  };
}

/** For `auto`, the language the chain found (none when nobody could tell). */
function detectedSourceOf(auto: boolean, actualSource: string): string | undefined {
  return auto && actualSource !== 'auto' ? actualSource : undefined;
}

/** The answer from a run of the chain. */
function chainAnswer({ result, actualSource }: ChainOutcome, { target, auto }: CheckedRequest): Translation {
  const detectedSource = detectedSourceOf(auto, actualSource);
  return {
    translatedText: result.text,
    source: actualSource,
    target,
    ...(detectedSource ? { detectedSource } : {}),
    engine: result.engine ?? 'none',
    cached: false,
    truncated: result.truncated,
    fallback: result.fallback,
    attempts: [...result.attempts],
    route: [...result.route],
    ...(result.unknownWords !== undefined ? { unknownWords: result.unknownWords } : {}),
  };
}

/** The answer from a hot-cache entry. */
function fromCache(hit: CachedTranslation, { target, auto }: CheckedRequest): Translation {
  return {
    translatedText: hit.translatedText,
    source: hit.source,
    target,
    ...(auto ? { detectedSource: hit.source } : {}),
    engine: hit.engine,
    cached: true,
    truncated: false,
    fallback: hit.fallback,
    attempts: [],
  };
}

/**
 * With `auto` left to the engines: when every engine that ran could not work without a known source
 * (the offline models, MyMemory), the problem is the request, not the engines: 400, asking for
 * `source`. When any engine failed for another reason (down, quota), it stays a 503.
 */
function undetectable(err: unknown): unknown {
  if (!(err instanceof AllEnginesFailedError || err instanceof UnsupportedPairError)) return err;
  const ran = err.attempts.filter((attempt) => attempt.outcome !== 'skipped');
  const allUnsupported = ran.length > 0 && ran.every((attempt) => attempt.outcome === 'unsupported');
  if (!allUnsupported) return err;
  return new AppError(
    'VALIDATION_FAILED',
    'the language of the text could not be detected; send its code as `source`',
    {
      issues: [
        {
          path: 'body.source',
          message: 'the language of the text could not be detected; send its code',
          code: 'undetectable',
        },
      ],
      attempts: err.attempts.map(({ slot, engine, outcome, reason }) => ({ slot, engine, outcome, reason })),
    },
  );
}

/** A translation the chain produced, as persistence keeps it. */
function completedTranslation(
  request: CheckedRequest,
  { result, actualSource }: ChainOutcome,
): CompletedTranslation {
  const detectedSource = detectedSourceOf(request.auto, actualSource);
  return {
    text: request.text,
    source: actualSource,
    target: request.target,
    translatedText: result.text,
    engine: result.engine ?? 'none',
    truncated: result.truncated,
    fallback: result.fallback,
    ...(detectedSource ? { detectedSource } : {}),
  };
}
