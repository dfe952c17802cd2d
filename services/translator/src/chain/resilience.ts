import {
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  handleWhen,
  retry,
  TaskCancelledError,
  timeout,
  TimeoutStrategy,
  wrap,
  type FailureReason,
  type IBackoff,
  type IBackoffFactory,
  type IBreaker,
  type IHalfOpenAfterBackoffContext,
  type IRetryBackoffContext,
} from 'cockatiel';

import {
  EngineError,
  type EngineItem,
  type EngineRequest,
  type TranslationEngine,
} from '../engines/engine.js';

/**
 * Timeout, retry and circuit breaker around one engine, built from cockatiel policies:
 * retry( breaker( timeout( engine.translate ) ) ). Each attempt (one call, however many texts it
 * carries) has its own timeout and counts for the breaker; retries happen outside the breaker, so an
 * opened breaker stops them at once. A failure the engine answers for one text of a call is that
 * text's: it is neither retried nor counted against the engine.
 */
export interface ResilienceOptions {
  /** Per attempt; the engine's AbortSignal fires and the attempt counts as a transient failure. */
  readonly timeoutMs: number;
  /** Retries after the first attempt, for `transient` failures only. */
  readonly maxRetries: number;
  /** Exponential backoff with decorrelated jitter (cockatiel's default generator) between these. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** A Retry-After up to this long is waited for; a longer one gives up and opens the breaker. */
  readonly maxRetryAfterMs: number;
  /** Consecutive failed attempts that open the breaker. */
  readonly breakerThreshold: number;
  /** How long an opened breaker rejects calls before letting one trial call through (half-open). */
  readonly breakerCooldownMs: number;
  /** Cooldown after a `quota` failure, which opens the breaker at once: quotas reset slowly. */
  readonly quotaCooldownMs: number;
}

export const DEFAULT_RESILIENCE: ResilienceOptions = {
  timeoutMs: 10_000,
  maxRetries: 2,
  initialBackoffMs: 200,
  maxBackoffMs: 2_000,
  maxRetryAfterMs: 5_000,
  breakerThreshold: 5,
  breakerCooldownMs: 30_000,
  quotaCooldownMs: 15 * 60_000,
};

export type BreakerState = 'closed' | 'open' | 'half-open';

/** cockatiel's states in ours: an isolated breaker (none here) rejects calls like an open one. */
const BREAKER_STATES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Open]: 'open',
  [CircuitState.Isolated]: 'open',
};

export interface ResilientEngine extends TranslationEngine {
  /** `half-open` once the cooldown has passed: the next call is let through as a trial. */
  breakerState(): BreakerState;
}

/** Thrown instead of calling the engine while its breaker is open. */
export class BreakerOpenError extends Error {
  override readonly name = 'BreakerOpenError';
  constructor(readonly engine: string) {
    super(`${engine}: circuit breaker open`);
  }
}

/**
 * Wraps an engine; keep one wrapper per engine for the process's lifetime, as the breaker lives in it.
 * `onBreakerChange` hears each transition of the breaker (for the breaker transitions metric).
 */
export function withResilience(
  engine: TranslationEngine,
  overrides: Partial<ResilienceOptions> = {},
  onBreakerChange?: (state: BreakerState) => void,
): ResilientEngine {
  const options = { ...DEFAULT_RESILIENCE, ...overrides };
  const breaker = engineBreaker(options);
  if (onBreakerChange) breaker.policy.onStateChange((state) => onBreakerChange(BREAKER_STATES[state]));
  const policy = wrap(retryPolicy(options), breaker.policy);
  const attempt = timedAttempt(engine, options.timeoutMs);
  return {
    name: engine.name,
    maxChars: engine.maxChars,
    ...(engine.batch ? { batch: engine.batch } : {}),
    ...(engine.appliesGlossaries ? { appliesGlossaries: true } : {}),
    ...(engine.controls ? { controls: engine.controls.bind(engine) } : {}),
    // Reading the pairs is not a translation: no breaker, retries or timeout of the chain's.
    languagePairs: (signal) => engine.languagePairs(signal),
    async translate(request, signal) {
      signal.throwIfAborted();
      try {
        // cockatiel's backoff sleep ignores the signal; the race hands control back at once on abort.
        return await abortable(
          policy.execute(({ signal: inner }) => attempt(request, inner), signal),
          signal,
        );
      } catch (error) {
        if (error instanceof CallerAborted) throw error.reason;
        if (isBrokenCircuit(error)) throw new BreakerOpenError(engine.name);
        throw error;
      }
    },
    breakerState: breaker.state,
  };
}

/**
 * The breaker policy: opened by `breakerThreshold` consecutive failures, or at once by a quota or a
 * Retry-After longer than `maxRetryAfterMs`; with the state it reports (`half-open` once the cooldown
 * of the failure that opened it has passed).
 */
function engineBreaker(options: ResilienceOptions) {
  const opensAtOnce = (error: unknown): boolean =>
    error instanceof EngineError &&
    (error.kind === 'quota' ||
      (error.kind === 'transient' && (error.retryAfterMs ?? 0) > options.maxRetryAfterMs));
  const breaker = new QuotaAwareBreaker(options.breakerThreshold, opensAtOnce);
  const cooldown = new Cooldown(options);
  const policy = circuitBreaker(handleWhen(countsAgainstEngine), { breaker, halfOpenAfter: cooldown });
  breaker.lastFailure = () => policy.lastFailure;
  let openedAt = 0;
  policy.onBreak(() => {
    openedAt = Date.now();
  });
  const state = (): BreakerState => {
    switch (policy.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.HalfOpen:
        return 'half-open';
      case CircuitState.Open:
        return Date.now() - openedAt >= cooldown.current ? 'half-open' : 'open';
      case CircuitState.Isolated:
        return 'open';
    }
  };
  return { policy, state };
}

/** Retries of transient failures, with exponential backoff that waits at least the engine's Retry-After. */
function retryPolicy(options: ResilienceOptions) {
  return retry(
    handleWhen((error) => isRetryable(error, options.maxRetryAfterMs)),
    {
      maxAttempts: options.maxRetries,
      backoff: honourRetryAfter(
        new ExponentialBackoff({ initialDelay: options.initialBackoffMs, maxDelay: options.maxBackoffMs }),
      ),
    },
  );
}

/**
 * One call of the engine under cockatiel's timeout (aggressive: at the timeout the attempt fails at
 * once, also when the engine ignores its signal); a timeout is a transient EngineError. The call's
 * signal fires on the timeout and on the caller's abort; nothing is aborted when it returns in time.
 */
function timedAttempt(engine: TranslationEngine, timeoutMs: number) {
  const policy = timeout(timeoutMs, { strategy: TimeoutStrategy.Aggressive, abortOnReturn: false });
  return async (request: EngineRequest, caller: AbortSignal): Promise<readonly EngineItem[]> => {
    // cockatiel may still start a retry after an abort during its backoff sleep.
    if (caller.aborted) throw new CallerAborted(caller.reason);
    try {
      return await policy.execute(({ signal }) => engine.translate(request, signal), caller);
    } catch (error) {
      if (caller.aborted) throw new CallerAborted(caller.reason);
      if (error instanceof TaskCancelledError) {
        throw new EngineError(engine.name, 'transient', `timed out after ${timeoutMs} ms`, undefined, {
          cause: error,
        });
      }
      throw error;
    }
  };
}

/** Failures that say something about the engine's health. `unsupported`/`rejected` are about the request. */
function countsAgainstEngine(error: unknown): boolean {
  if (error instanceof CallerAborted) return false;
  if (error instanceof EngineError) return error.kind === 'transient' || error.kind === 'quota';
  return true; // an adapter bug or an unmapped network error
}

function isRetryable(error: unknown, maxRetryAfterMs: number): boolean {
  return (
    error instanceof EngineError &&
    error.kind === 'transient' &&
    (error.retryAfterMs === undefined || error.retryAfterMs <= maxRetryAfterMs)
  );
}

const isBrokenCircuit = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'isBrokenCircuitError' in error;

/** Carries the caller's abort through the policies without counting as an engine failure. */
class CallerAborted extends Error {
  constructor(readonly reason: unknown) {
    super('aborted by caller');
  }
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CallerAborted(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Waits at least as long as the engine's Retry-After asked (isRetryable already capped it). */
function honourRetryAfter(
  exponential: IBackoffFactory<IRetryBackoffContext<unknown>>,
): IBackoffFactory<IRetryBackoffContext<unknown>> {
  return {
    next(context) {
      const base = exponential.next(context);
      const error = 'error' in context.result ? context.result.error : undefined;
      const retryAfter = error instanceof EngineError ? (error.retryAfterMs ?? 0) : 0;
      return { duration: Math.max(base.duration, retryAfter), next: honourRetryAfter(base).next };
    },
  };
}

/**
 * cockatiel's ConsecutiveBreaker, plus: a failure that `opensAtOnce` (quota, a long Retry-After)
 * opens the circuit on its own. IBreaker.failure() is not given the error, but the policy records it
 * as `lastFailure` just before asking, so we read it from there.
 */
class QuotaAwareBreaker implements IBreaker {
  private readonly consecutive: ConsecutiveBreaker;
  lastFailure: () => FailureReason<unknown> | undefined = () => undefined;

  constructor(
    threshold: number,
    private readonly opensAtOnce: (error: unknown) => boolean,
  ) {
    this.consecutive = new ConsecutiveBreaker(threshold);
  }

  get state(): unknown {
    return this.consecutive.state;
  }
  set state(value: unknown) {
    this.consecutive.state = value as number;
  }

  success(): void {
    this.consecutive.success();
  }

  failure(): boolean {
    const opens = this.consecutive.failure();
    const last = this.lastFailure();
    return opens || (last !== undefined && 'error' in last && this.opensAtOnce(last.error));
  }
}

/** Half-open delay chosen by the failure that opened the breaker; remembers the current one for status. */
class Cooldown implements IBackoffFactory<IHalfOpenAfterBackoffContext> {
  current = 0;

  constructor(private readonly options: ResilienceOptions) {}

  next(context: IHalfOpenAfterBackoffContext): IBackoff<IHalfOpenAfterBackoffContext> {
    this.current = this.durationFor('error' in context.result ? context.result.error : undefined);
    return { duration: this.current, next: (later) => this.next(later) };
  }

  private durationFor(error: unknown): number {
    const { breakerCooldownMs, quotaCooldownMs } = this.options;
    if (!(error instanceof EngineError)) return breakerCooldownMs;
    if (error.kind === 'quota') return quotaCooldownMs;
    // A long Retry-After is the engine telling us when to come back; within [normal, quota] cooldown.
    const retryAfter = error.retryAfterMs ?? 0;
    return Math.min(Math.max(retryAfter, breakerCooldownMs), quotaCooldownMs);
  }
}
