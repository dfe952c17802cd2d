import { performance } from 'node:perf_hooks';

import type { Registry } from 'prom-client';

import type { EngineName, TranslationEngine } from '../engines/engine.js';
import { AllEnginesFailedError } from './all-engines-failed.error.js';
import { chainMetrics, type CallOutcome } from './chain-metrics.js';
import {
  withResilience,
  type BreakerState,
  type ResilienceOptions,
  type ResilientEngine,
} from './resilience.js';
import { translateWithEngine, type EngineOutcome } from './translate-with-engine.js';

/** The spec's fixed order. */
export const SLOTS = ['primary', 'fallback', 'local', 'offline'] as const;
export type SlotName = (typeof SLOTS)[number];

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
}

/** An engine left undefined is "not configured": skipped, and shown as such in status(). */
export interface ChainEngines {
  readonly primary?: TranslationEngine;
  readonly fallback?: TranslationEngine;
  readonly local?: TranslationEngine;
  readonly offline?: TranslationEngine;
  readonly options?: ChainOptions;
}

export interface TranslateRequest {
  readonly text: string;
  /** Our language code, or `auto`. */
  readonly source: string;
  readonly target: string;
}

export type AttemptOutcome = 'ok' | 'failed' | 'skipped' | 'breaker-open';

export interface Attempt {
  readonly slot: SlotName;
  /** Absent when the slot has no engine configured. */
  readonly engine?: EngineName;
  readonly outcome: AttemptOutcome;
  readonly reason?: string;
  /** Time spent on this engine, all chunks and retries included. */
  readonly ms: number;
}

export interface ChainResult {
  readonly text: string;
  /** The engine that produced `text`; undefined only for blank text, which no engine is asked about. */
  readonly engine: EngineName | undefined;
  /** True when only the start of the text was translated (the fallback's 500-character limit). */
  readonly truncated: boolean;
  readonly detectedSource?: string;
  readonly attempts: readonly Attempt[];
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

export interface TranslationChain {
  /** Throws AllEnginesFailedError when no engine succeeded, or the signal's reason when aborted. */
  translate(request: TranslateRequest, signal?: AbortSignal): Promise<ChainResult>;
  /** Per slot, in chain order, for status pages. */
  status(): EngineStatus[];
}

/**
 * MyMemory truncates at 500 characters by itself and says so, so the fallback gets one piece. The
 * local and offline engines are slower per call (CPU), so they get longer timeouts and fewer retries:
 * an offline model failing once will fail again.
 */
const SLOT_DEFAULTS: Record<SlotName, { split: boolean; resilience: Partial<ResilienceOptions> }> = {
  primary: { split: true, resilience: {} },
  fallback: { split: false, resilience: { maxRetries: 1 } },
  local: { split: true, resilience: { timeoutMs: 30_000, maxRetries: 1 } },
  offline: { split: true, resilience: { timeoutMs: 60_000, maxRetries: 0 } },
};

interface Slot {
  readonly name: SlotName;
  readonly engine: ResilientEngine | undefined;
  readonly split: boolean;
  successes: number;
  failures: number;
  lastError?: { reason: string; at: string };
}

const NEVER_ABORTED = new AbortController().signal;

export function createChain(engines: ChainEngines): TranslationChain {
  const options = engines.options ?? {};
  const slots: Slot[] = SLOTS.map((name) => {
    const engine = engines[name];
    const own = options.slots?.[name];
    const resilience = { ...SLOT_DEFAULTS[name].resilience, ...options.resilience, ...own?.resilience };
    return {
      name,
      engine: engine && withResilience(engine, resilience),
      split: own?.split ?? SLOT_DEFAULTS[name].split,
      successes: 0,
      failures: 0,
    };
  });
  const metrics = chainMetrics(options.metrics, () =>
    slots.flatMap(({ engine }) => (engine ? [{ engine: engine.name, state: engine.breakerState() }] : [])),
  );

  /** Runs one configured engine, unless its breaker is open. */
  async function run(engine: ResilientEngine, slot: Slot, request: TranslateRequest, signal: AbortSignal) {
    const started = performance.now();
    const result: EngineOutcome =
      engine.breakerState() === 'open'
        ? { ok: false, breakerOpen: true, reason: 'circuit breaker open' }
        : await translateWithEngine(engine, request, slot.split, signal);
    return { result, ms: performance.now() - started };
  }

  function record(
    slot: Slot,
    engine: EngineName,
    outcome: CallOutcome,
    reason: string | undefined,
    ms: number,
  ) {
    metrics.record(engine, outcome, ms / 1000);
    if (outcome === 'ok') slot.successes += 1;
    if (outcome === 'failed') {
      slot.failures += 1;
      slot.lastError = { reason: reason ?? 'failed', at: new Date().toISOString() };
    }
  }

  return {
    async translate(request, signal = NEVER_ABORTED) {
      signal.throwIfAborted();
      if (request.text.trim() === '') {
        return { text: request.text, engine: undefined, truncated: false, attempts: [] };
      }
      const attempts: Attempt[] = [];
      // An answer identical to the input is suspicious from one engine (echoing is a known failure),
      // but when a second engine agrees, the text is most likely a name or code that stays as it is.
      let echoedBy: EngineName | undefined;
      for (const slot of slots) {
        signal.throwIfAborted();
        const { engine } = slot;
        if (!engine) {
          attempts.push({ slot: slot.name, outcome: 'skipped', reason: 'not configured', ms: 0 });
          continue;
        }
        const { result, ms } = await run(engine, slot, request, signal);
        const { outcome, reason, done } = judge(result, echoedBy);
        record(slot, engine.name, outcome, reason, ms);
        attempts.push({
          slot: slot.name,
          engine: engine.name,
          outcome,
          ...(reason ? { reason } : {}),
          ms: Math.round(ms),
        });
        if (done) return finish(done, engine.name, attempts);
        if (!result.ok && result.unchanged) echoedBy ??= engine.name;
      }
      throw new AllEnginesFailedError(attempts);
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
  };
}

/** The attempt's outcome, and the text to return if it is one. */
function judge(
  result: EngineOutcome,
  echoedBy: EngineName | undefined,
): { outcome: CallOutcome; reason?: string; done?: Translated } {
  if (result.ok) return { outcome: 'ok', done: result };
  if (result.unchanged && echoedBy) {
    return { outcome: 'ok', reason: `unchanged, as ${echoedBy} also answered`, done: result.unchanged };
  }
  return { outcome: result.breakerOpen ? 'breaker-open' : 'failed', reason: result.reason };
}

type Translated = { readonly text: string; readonly truncated: boolean; readonly detectedSource?: string };

function finish(result: Translated, engine: EngineName, attempts: Attempt[]): ChainResult {
  return {
    text: result.text,
    engine,
    truncated: result.truncated,
    ...(result.detectedSource ? { detectedSource: result.detectedSource } : {}),
    attempts,
  };
}
