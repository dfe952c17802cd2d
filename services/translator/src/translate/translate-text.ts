import { performance } from 'node:perf_hooks';

import { AppError, assertTextLength } from '@tp/runtime';
import { hotCacheHash, languageCode, type HotCache } from '@tp/translation';
import type { TranslationResult } from '@tp/service-contracts';
import { Counter, type Registry } from 'prom-client';

import {
  AllEnginesFailedError,
  UnsupportedPairError,
  type ChainResult,
  type TranslationChain,
} from '../chain/index.js';
import type { CompletedTranslationSink, EventOrigin } from './completed-translations.outbox.js';
import type { LanguageDetector } from './detect-language.js';
import type { GlossaryLookup, PairGlossary } from '../glossary/glossary-directory.js';
import { InFlight, type Hold } from './in-flight.js';

export interface TranslateTextInput {
  readonly text: string;
  /** A language code (any case, `_` or `-`), or `auto`. */
  readonly source: string;
  readonly target: string;
}

/** The answer of POST /translate (its contract: @tp/service-contracts). */
export type { TranslationResult };

export interface TranslateTextDeps {
  /** Without `strongerEngineHealthy`, a cached fallback result is served like any other. */
  readonly chain: Pick<TranslationChain, 'translate'> &
    Partial<Pick<TranslationChain, 'strongerEngineHealthy'>>;
  readonly cache: Pick<HotCache, 'read' | 'store'>;
  readonly detector: Pick<LanguageDetector, 'detect'>;
  readonly sink: CompletedTranslationSink;
  readonly maxTextChars: number;
  readonly metrics?: Registry;
  /** Most distinct texts translated at once that identical requests can join (default 10,000). */
  readonly maxInFlight?: number;
  /** How long a finished run's result can still be joined once it is cached (default JOIN_GRACE_MS). */
  readonly joinGraceMs?: number;
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

/**
 * The translation use case: check the codes and the length, answer from the hot cache when it can,
 * otherwise detect the source (for `auto`) and run the engine chain; then cache a complete result and
 * hand it to persistence, which the answer does not wait for.
 */
export class TranslateText {
  private readonly lookups?: Counter<'result'>;
  private readonly inFlight: InFlight<Outcome>;

  constructor(private readonly deps: TranslateTextDeps) {
    this.inFlight = new InFlight(deps.maxInFlight ?? 10_000, deps.joinGraceMs ?? JOIN_GRACE_MS);
    if (deps.metrics) {
      this.lookups = new Counter({
        name: 'translation_cache_lookups_total',
        help: 'Hot cache lookups by result (hit, miss)',
        labelNames: ['result'] as const,
        registers: [deps.metrics],
      });
    }
  }

  async execute(input: TranslateTextInput, origin: RequestOrigin): Promise<TranslationResult> {
    const started = performance.now();
    const seconds = () => Math.round(performance.now() - started) / 1000;
    const source = languageCode('source', input.source);
    const auto = source === 'auto';
    const target = languageCode('target', input.target);
    const { text } = input;
    assertTextLength(text, this.deps.maxTextChars);

    const asIs = (used: string, detected?: string): TranslationResult => ({
      translatedText: text,
      source: used,
      target,
      ...(detected ? { detectedSource: detected } : {}),
      engine: 'none',
      cached: false,
      truncated: false,
      fallback: false,
      duration: seconds(),
      attempts: [],
    });
    // Nothing to translate: no engine call, nothing cached or kept.
    if (text.trim() === '' || source === target) return asIs(source);

    // The glossary version is part of the key: an edited glossary is never answered from the cache.
    const glossaries = this.deps.glossaries;
    const keyVersion = await this.glossaryKeyVersion(source, target, auto);
    const key = { source, target, text, glossaryVersion: keyVersion };
    // A known source is looked up once, by the run below (a miss costs one Redis read, not two);
    // `auto` is looked up first, so a hit does not wait for language detection.
    if (auto) {
      const hit = this.usable(await this.deps.cache.read(key), target);
      this.lookups?.inc({ result: hit ? 'hit' : 'miss' });
      if (hit) return fromCache(hit, target, auto, seconds());
    }

    // `auto`: our own guess when it is trustworthy; otherwise the engines that can detect do.
    const guessed = auto ? this.deps.detector.detect(text) : undefined;
    const used = guessed ?? source;
    if (used === target) return asIs(used, guessed);

    // A glossary applies when the source is known (or detected by us); DeepL needs it too.
    const pair: PairGlossary =
      glossaries && used !== 'auto' ? await glossaries.forPair(used, target) : { version: 0 };
    // Identical requests in flight at the same time share one run of the chain (one engine call).
    const request = { text, source: used, target, ...(pair.glossary ? { glossary: pair.glossary } : {}) };
    const joinKey = hotCacheHash({ text, source: used, target, glossaryVersion: pair.version });
    const run = { key, request, appliedVersion: pair.version, read: true };
    const {
      value: outcome,
      shared,
      finished,
    } = await this.inFlight
      .run(joinKey, origin.signal, (signal, hold) => this.runOnce(run, signal, hold))
      .catch((err: unknown) => {
        throw used === 'auto' ? undetectable(err) : err;
      });
    // (`auto` counted its lookup above.) A run that had finished and was being cached when this
    // request joined it answers as the cache would have a moment later: a fallback result only
    // while no stronger engine is healthy, else the chain runs again for this request.
    const count = (result: 'hit' | 'miss') => (auto ? undefined : this.lookups?.inc({ result }));
    if ('hit' in outcome) {
      count('hit');
      return fromCache(outcome.hit, target, auto, seconds());
    }
    const late = finished ? cachedEntry(outcome) : undefined;
    const usableLate = late && this.usable(late, target);
    count(usableLate ? 'hit' : 'miss');
    if (usableLate) return fromCache(usableLate, target, auto, seconds());
    if (late) return this.runAgain(run, { text, auto }, origin, seconds);
    // The caller whose run it was keeps the result; the ones that joined it add nothing new.
    if (origin.recordResult !== false && !shared) this.record(text, target, auto, outcome, origin);
    return chainAnswer(outcome, target, auto, seconds());
  }

  /** A run of the chain for this request alone (a joined run's result was a fallback it cannot use). */
  private async runAgain(
    run: RunInput,
    { text, auto }: { readonly text: string; readonly auto: boolean },
    origin: RequestOrigin,
    seconds: () => number,
  ): Promise<TranslationResult> {
    const outcome = await this.runOnce({ ...run, read: false }, origin.signal ?? NEVER, storeAlone);
    if ('hit' in outcome) return fromCache(outcome.hit, run.request.target, auto, seconds());
    if (origin.recordResult !== false) this.record(text, run.request.target, auto, outcome, origin);
    return chainAnswer(outcome, run.request.target, auto, seconds());
  }

  /** The glossary version in the cache key: 0 without glossaries, the target's for `auto`. */
  private async glossaryKeyVersion(source: string, target: string, auto: boolean): Promise<number> {
    const glossaries = this.deps.glossaries;
    if (!glossaries) return 0;
    return auto ? glossaries.targetVersion(target) : (await glossaries.forPair(source, target)).version;
  }

  /** Hands a translation the chain produced to the sink, to be kept. */
  private record(
    text: string,
    target: string,
    auto: boolean,
    outcome: ChainOutcome,
    origin: RequestOrigin,
  ): void {
    const { result, actualSource } = outcome;
    const detectedSource = detectedSourceOf(auto, actualSource);
    this.deps.sink.record(
      {
        text,
        source: actualSource,
        target,
        translatedText: result.text,
        engine: result.engine ?? 'none',
        truncated: result.truncated,
        fallback: result.fallback,
        ...(detectedSource ? { detectedSource } : {}),
      },
      { correlationId: origin.correlationId, causationId: origin.causationId },
    );
  }

  /**
   * One run of the chain, shared by the identical requests that join it. It first reads the cache
   * again (a run that finished a moment ago has stored its result there), unless its caller has just
   * read it; and it stays joinable until its own result is stored (`hold`) and for JOIN_GRACE_MS
   * after: so a request arriving at any moment either joins, or hits the cache, even one whose
   * caller's read missed just before the store. Its caller is answered without waiting for the store.
   */
  private async runOnce(
    { key, request, appliedVersion, read }: RunInput,
    signal: AbortSignal,
    hold: Hold,
  ): Promise<Outcome> {
    const stored = read ? this.usable(await this.deps.cache.read(key), request.target) : undefined;
    if (stored) return { hit: stored };
    const result = await this.deps.chain.translate(request, signal);
    const actualSource = request.source === 'auto' ? (result.detectedSource ?? 'auto') : request.source;
    const outcome = { result, actualSource };
    const entry = cachedEntry(outcome);
    if (entry) hold(this.store(key, entry, request.target, appliedVersion));
    return outcome;
  }

  /**
   * Stores a result under the key asked for and, for `auto`, under the language found, so a later
   * request naming that language hits too (a Redis round trip each, or nothing while Redis is down).
   * True when it is stored under the key asked for.
   */
  private async store(
    key: CacheKey,
    entry: CachedTranslation,
    target: string,
    appliedVersion: number,
  ): Promise<boolean> {
    const keys = [key];
    if (entry.source !== key.source && (await this.appliesTo(entry.source, target, appliedVersion))) {
      keys.push({ ...key, source: entry.source, glossaryVersion: appliedVersion });
    }
    const stored = await Promise.all(
      keys.map((k) => this.deps.cache.store(k, { ...entry, truncated: false })),
    );
    return stored[0] === true;
  }

  /**
   * A cached entry, unless it is a fallback result while a stronger engine is healthy: then the chain
   * runs again, so a re-request (the read path's, issue #19) can replace a weak translation.
   */
  private usable(hit: CachedTranslation | undefined, target: string): CachedTranslation | undefined {
    if (!hit?.fallback) return hit;
    return this.deps.chain.strongerEngineHealthy?.(hit.engine, hit.source, target) ? undefined : hit;
  }

  private appliesTo(source: string, target: string, applied: number): Promise<boolean> {
    return appliesToPair(this.deps.glossaries, source, target, applied);
  }
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

const NEVER = new AbortController().signal;
/** A store nobody waits for: a failure of it only means nothing was cached. */
const storeAlone: Hold = (work) => void work.catch(() => false);

/**
 * How long a finished run stays joinable once its result is cached: longer than a request takes from
 * the gateway's cache read to the translator, so a request whose read missed just before the store
 * still joins (one engine call) though the translator does not read the cache again.
 */
export const JOIN_GRACE_MS = 1000;

/** What a run of the chain translates, under which cache key, and whether it reads the cache first. */
interface RunInput {
  readonly key: CacheKey;
  readonly request: ChainRequest;
  readonly appliedVersion: number;
  readonly read: boolean;
}

/** What one shared run produced: a result another run had just cached, or its own chain result. */
type ChainOutcome = { readonly result: ChainResult; readonly actualSource: string };
type Outcome = { readonly hit: CachedTranslation } | ChainOutcome;
type CacheKey = Parameters<HotCache['read']>[0];
type CachedTranslation = NonNullable<Awaited<ReturnType<HotCache['read']>>>;
type ChainRequest = Parameters<TranslationChain['translate']>[0];

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
function chainAnswer(
  { result, actualSource }: ChainOutcome,
  target: string,
  auto: boolean,
  duration: number,
): TranslationResult {
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
    duration,
    attempts: [...result.attempts],
    route: [...result.route],
    ...(result.unknownWords !== undefined ? { unknownWords: result.unknownWords } : {}),
  };
}

/** The answer from a hot-cache entry. */
function fromCache(
  hit: CachedTranslation,
  target: string,
  auto: boolean,
  duration: number,
): TranslationResult {
  return {
    translatedText: hit.translatedText,
    source: hit.source,
    target,
    ...(auto ? { detectedSource: hit.source } : {}),
    engine: hit.engine,
    cached: true,
    truncated: false,
    fallback: hit.fallback,
    duration,
    attempts: [],
  };
}

/** Characters are counted as code points, as a person would count them (an emoji is one). */

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
