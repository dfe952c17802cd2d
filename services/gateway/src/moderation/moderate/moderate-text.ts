import { AppError } from '@tp/runtime';
import { z } from 'zod';

import type { TermMatch } from '../matching/term-matcher.js';
import type { TermCatalogue } from '../terms/term-catalogue.js';

export const MODERATION_MODES = ['keyword', 'hybrid'] as const;
export type ModerationMode = (typeof MODERATION_MODES)[number];

/**
 * The NLI service's comprehensive check (POST /detect); answers at least `{is_safe}`. Failures it
 * throws as AppError (NLI_UNAVAILABLE, NLI_DISABLED...) reach the client as they are.
 */
export type NliDetect = (text: string, signal: AbortSignal, requestId?: string) => Promise<unknown>;

export interface ModerateInput {
  readonly text: string;
  readonly mode: ModerationMode;
  readonly languages?: readonly string[] | undefined;
}

export interface ModerationResult {
  readonly flagged: boolean;
  readonly matches: TermMatch[];
  readonly mode: ModerationMode;
  readonly duration_ms: number;
  readonly nli?: NliVerdict;
}

const nliVerdict = z.looseObject({ is_safe: z.boolean() });
export type NliVerdict = z.infer<typeof nliVerdict>;

export interface ModerateTextOptions {
  /** Absent until the gateway is wired to the nli service: hybrid calls then answer 503. */
  readonly nliDetect?: NliDetect | undefined;
  readonly nliTimeoutMs: number;
}

/**
 * Keyword moderation, and in hybrid mode the NLI check for texts the keywords found clean: a keyword
 * hit is already a verdict, so only clean texts pay the 200-500 ms of the model.
 */
export class ModerateText {
  constructor(
    private readonly catalogue: TermCatalogue,
    private readonly options: ModerateTextOptions,
  ) {}

  async execute(input: ModerateInput, signal: AbortSignal, requestId?: string): Promise<ModerationResult> {
    const matcher = await this.catalogue.current();
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    const matches = matcher.find(input.text, { languages: input.languages });
    if (input.mode === 'keyword' || matches.length > 0) {
      return { flagged: matches.length > 0, matches, mode: input.mode, duration_ms: elapsed() };
    }
    const nli = await this.nliVerdict(input.text, signal, requestId);
    return { flagged: !nli.is_safe, matches, mode: input.mode, duration_ms: elapsed(), nli };
  }

  /** The NLI service's verdict on one text (at most its NLI_MAX_TEXT_CHARS), or the 503 it cannot give. */
  async nliVerdict(text: string, signal: AbortSignal, requestId?: string): Promise<NliVerdict> {
    const { nliDetect, nliTimeoutMs } = this.options;
    if (!nliDetect) throw nliUnavailable('NLI moderation is not configured on this gateway');
    const timeout = AbortSignal.timeout(nliTimeoutMs);
    let answer: unknown;
    try {
      const either = AbortSignal.any([signal, timeout]);
      answer = await untilAborted(nliDetect(text, either, requestId), either);
    } catch (err) {
      // The nli client's own codes (NLI_DISABLED, NLI_MODEL_NOT_READY...) say more than ours.
      if (err instanceof AppError) throw err;
      throw nliUnavailable(
        timeout.aborted
          ? `the NLI service did not answer within ${nliTimeoutMs} ms`
          : 'the NLI service is unavailable',
      );
    }
    const verdict = nliVerdict.safeParse(answer);
    if (!verdict.success) throw nliUnavailable('the NLI service answered without an is_safe verdict');
    return verdict.data;
  }
}

function nliUnavailable(reason: string): AppError {
  return new AppError('NLI_UNAVAILABLE', `${reason}; retry, or use mode "keyword"`, {
    dependency: 'nli',
  });
}

/** Rejects when `signal` aborts, even if `work` ignores its signal. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
