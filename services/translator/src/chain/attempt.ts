import type { EngineName } from '../engines/engine.js';

/**
 * The spec's order (primary online, free fallback, local instance, offline), with Apertium as a
 * second local instance after LibreTranslate (docs/decisions.md, "Which engines run, and in which order").
 */
export const SLOTS = ['primary', 'fallback', 'local', 'apertium', 'offline'] as const;
export type SlotName = (typeof SLOTS)[number];

/** `unsupported`: the engine does not serve the pair (by its list, not called, or by its own answer). */
export type AttemptOutcome = 'ok' | 'failed' | 'skipped' | 'breaker-open' | 'unsupported';

export interface Attempt {
  readonly slot: SlotName;
  /** Absent when the slot has no engine configured. */
  readonly engine?: EngineName;
  readonly outcome: AttemptOutcome;
  readonly reason?: string;
  /** Time spent on this engine, all chunks and retries included. */
  readonly ms: number;
  /** The hop of a pivot route this attempt was for (absent for the requested pair itself). */
  readonly source?: string;
  readonly target?: string;
}
