import type { AttemptOutcome, SlotName } from '@tp/service-contracts';

import type { EngineName } from '../engines/engine.js';

// The chain's slots and attempt outcomes are words of the translator's contract.
export { SLOTS, type AttemptOutcome, type SlotName } from '@tp/service-contracts';

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
