import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from '@jest/globals';

import { translateOne } from '@tp/test/doubles/engine-test-kit';

import {
  EngineError,
  oneTextPerCall,
  type EngineResult,
  type TextRequest,
  type TranslationEngine,
} from '../engines/engine.js';
import { EVERY_PAIR } from '../engines/pair-coverage.js';
import { BreakerOpenError, withResilience, type ResilienceOptions } from './resilience.js';

type Step = (request: TextRequest, signal: AbortSignal) => Promise<EngineResult>;

/** Stands in for the engine port: answers with the given steps in turn (the last one repeats). */
function fakeEngine(...steps: Step[]) {
  const calls: { request: TextRequest; signal: AbortSignal }[] = [];
  const engine: TranslationEngine = {
    name: 'deepl',
    maxChars: 5000,
    languagePairs: async () => EVERY_PAIR,
    translate: oneTextPerCall((request, signal) => {
      calls.push({ request, signal });
      const step = steps[Math.min(calls.length, steps.length) - 1] as Step;
      return step(request, signal);
    }),
  };
  return { engine, calls };
}

const ok: Step = async (request) => ({ text: `[de] ${request.text}`, truncated: false });
const fail =
  (kind: EngineError['kind'], retryAfterMs?: number): Step =>
  async () => {
    throw new EngineError('deepl', kind, `${kind} failure`, retryAfterMs);
  };
const hang: Step = (_request, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

/** Small timings so no test sleeps for more than a few tens of milliseconds. */
const fast: Partial<ResilienceOptions> = {
  timeoutMs: 50,
  maxRetries: 2,
  initialBackoffMs: 1,
  maxBackoffMs: 5,
  maxRetryAfterMs: 100,
  breakerThreshold: 3,
  breakerCooldownMs: 30,
  quotaCooldownMs: 10_000,
};

const request = { text: 'Hello', source: 'en', target: 'de' };
const live = () => new AbortController().signal;

describe('withResilience', () => {
  it('passes a successful answer through and keeps the engine name and limit', async () => {
    const { engine, calls } = fakeEngine(ok);
    const resilient = withResilience(engine, fast);
    await expect(translateOne(resilient, request, live())).resolves.toEqual({
      text: '[de] Hello',
      truncated: false,
    });
    expect(calls).toHaveLength(1);
    expect(resilient).toMatchObject({ name: 'deepl', maxChars: 5000 });
  });

  describe('retries', () => {
    it('retries transient failures and returns the first success', async () => {
      const { engine, calls } = fakeEngine(fail('transient'), fail('transient'), ok);
      await expect(translateOne(withResilience(engine, fast), request, live())).resolves.toMatchObject({
        text: '[de] Hello',
      });
      expect(calls).toHaveLength(3);
    });

    it('gives up after maxRetries and throws the last failure', async () => {
      const { engine, calls } = fakeEngine(fail('transient'));
      await expect(translateOne(withResilience(engine, fast), request, live())).rejects.toMatchObject({
        kind: 'transient',
      });
      expect(calls).toHaveLength(3);
    });

    it.each(['quota', 'unsupported', 'rejected'] as const)('does not retry a %s failure', async (kind) => {
      const { engine, calls } = fakeEngine(fail(kind), ok);
      await expect(translateOne(withResilience(engine, fast), request, live())).rejects.toMatchObject({
        kind,
      });
      expect(calls).toHaveLength(1);
    });

    it('waits at least the Retry-After the engine asked for', async () => {
      const { engine, calls } = fakeEngine(fail('transient', 40), ok);
      const started = performance.now();
      await translateOne(withResilience(engine, fast), request, live());
      expect(performance.now() - started).toBeGreaterThanOrEqual(38);
      expect(calls).toHaveLength(2);
    });

    it('gives up at once when Retry-After is longer than the cap, and opens the breaker', async () => {
      const { engine, calls } = fakeEngine(fail('transient', 60_000), ok);
      const resilient = withResilience(engine, fast);
      const started = performance.now();
      await expect(translateOne(resilient, request, live())).rejects.toMatchObject({ retryAfterMs: 60_000 });
      // Far below the 60 s asked for, and below even the cap of 100 ms: it did not wait.
      expect(performance.now() - started).toBeLessThan(90);
      expect(calls).toHaveLength(1);
      expect(resilient.breakerState()).toBe('open');
    });
  });

  describe('timeout', () => {
    it('aborts a slow attempt, retries it, then fails as transient', async () => {
      const { engine, calls } = fakeEngine(hang);
      const resilient = withResilience(engine, { ...fast, timeoutMs: 10, maxRetries: 1 });
      await expect(translateOne(resilient, request, live())).rejects.toThrow(/deepl: timed out after 10 ms/);
      expect(calls).toHaveLength(2);
      expect(calls.every(({ signal }) => signal.aborted)).toBe(true);
    });

    it('times out an engine that ignores its abort signal', async () => {
      const { engine } = fakeEngine(() => new Promise<EngineResult>(() => undefined));
      const resilient = withResilience(engine, { ...fast, timeoutMs: 10, maxRetries: 0 });
      await expect(translateOne(resilient, request, live())).rejects.toMatchObject({ kind: 'transient' });
    });

    it('lets a retry succeed after a timed-out attempt', async () => {
      const { engine } = fakeEngine(hang, ok);
      const resilient = withResilience(engine, { ...fast, timeoutMs: 10 });
      await expect(translateOne(resilient, request, live())).resolves.toMatchObject({ text: '[de] Hello' });
    });
  });

  describe('circuit breaker', () => {
    const noRetries = { ...fast, maxRetries: 0 };
    // For tests that look at the open state: a 30 ms cooldown can pass before the check on a busy machine.
    const staysOpen = { ...noRetries, breakerCooldownMs: 60_000 };

    it('opens after the threshold of consecutive failures and then rejects without calling', async () => {
      const { engine, calls } = fakeEngine(fail('transient'));
      const resilient = withResilience(engine, staysOpen);
      for (let i = 0; i < 3; i += 1) {
        expect(resilient.breakerState()).toBe('closed');
        await expect(translateOne(resilient, request, live())).rejects.toBeInstanceOf(EngineError);
      }
      expect(resilient.breakerState()).toBe('open');
      await expect(translateOne(resilient, request, live())).rejects.toBeInstanceOf(BreakerOpenError);
      expect(calls).toHaveLength(3);
    });

    it('a success resets the count of consecutive failures', async () => {
      const { engine } = fakeEngine(fail('transient'), fail('transient'), ok, fail('transient'));
      const resilient = withResilience(engine, noRetries);
      for (let i = 0; i < 4; i += 1) await translateOne(resilient, request, live()).catch(() => undefined);
      expect(resilient.breakerState()).toBe('closed');
    });

    it('goes half-open after the cooldown and closes on a successful trial call', async () => {
      const { engine, calls } = fakeEngine(fail('transient'), fail('transient'), fail('transient'), ok);
      const resilient = withResilience(engine, noRetries);
      for (let i = 0; i < 3; i += 1) await translateOne(resilient, request, live()).catch(() => undefined);
      expect(resilient.breakerState()).toBe('open');
      await sleep(40);
      expect(resilient.breakerState()).toBe('half-open');
      await expect(translateOne(resilient, request, live())).resolves.toMatchObject({ text: '[de] Hello' });
      expect(resilient.breakerState()).toBe('closed');
      expect(calls).toHaveLength(4);
    });

    it('opens again when the half-open trial fails', async () => {
      const { engine } = fakeEngine(fail('transient'));
      const resilient = withResilience(engine, noRetries);
      for (let i = 0; i < 3; i += 1) await translateOne(resilient, request, live()).catch(() => undefined);
      await sleep(40);
      await expect(translateOne(resilient, request, live())).rejects.toBeInstanceOf(EngineError);
      expect(resilient.breakerState()).toBe('open');
    });

    it('opens at once on a quota failure and stays open past the normal cooldown', async () => {
      const { engine, calls } = fakeEngine(fail('quota'), ok);
      const resilient = withResilience(engine, noRetries);
      await expect(translateOne(resilient, request, live())).rejects.toMatchObject({ kind: 'quota' });
      expect(resilient.breakerState()).toBe('open');
      await sleep(40);
      expect(resilient.breakerState()).toBe('open');
      await expect(translateOne(resilient, request, live())).rejects.toBeInstanceOf(BreakerOpenError);
      expect(calls).toHaveLength(1);
    });

    it.each(['unsupported', 'rejected'] as const)(
      'does not count %s failures against the engine',
      async (kind) => {
        const { engine } = fakeEngine(fail(kind));
        const resilient = withResilience(engine, { ...noRetries, breakerThreshold: 1 });
        await translateOne(resilient, request, live()).catch(() => undefined);
        await translateOne(resilient, request, live()).catch(() => undefined);
        expect(resilient.breakerState()).toBe('closed');
      },
    );

    it('counts unexpected adapter errors against the engine', async () => {
      const { engine } = fakeEngine(async () => {
        throw new TypeError('adapter bug');
      });
      const resilient = withResilience(engine, { ...staysOpen, breakerThreshold: 1 });
      await expect(translateOne(resilient, request, live())).rejects.toThrow('adapter bug');
      expect(resilient.breakerState()).toBe('open');
    });
  });

  describe('caller abort', () => {
    it('rejects with the abort reason, aborts the engine call and does not count as a failure', async () => {
      const { engine, calls } = fakeEngine(hang);
      const resilient = withResilience(engine, { ...fast, timeoutMs: 1000, breakerThreshold: 1 });
      const controller = new AbortController();
      const pending = translateOne(resilient, request, controller.signal);
      await sleep(5);
      controller.abort(new Error('client went away'));
      await expect(pending).rejects.toThrow('client went away');
      expect(calls[0]?.signal.aborted).toBe(true);
      expect(resilient.breakerState()).toBe('closed');
    });

    it('stops waiting for a retry backoff at once', async () => {
      const { engine, calls } = fakeEngine(fail('transient', 95), ok);
      const resilient = withResilience(engine, fast);
      const controller = new AbortController();
      const started = performance.now();
      const pending = translateOne(resilient, request, controller.signal);
      await sleep(5);
      controller.abort(new Error('stop'));
      await expect(pending).rejects.toThrow('stop');
      expect(performance.now() - started).toBeLessThan(80);
      await sleep(105);
      expect(calls).toHaveLength(1);
    });

    it('does not call the engine when already aborted', async () => {
      const { engine, calls } = fakeEngine(ok);
      const controller = new AbortController();
      controller.abort(new Error('too late'));
      await expect(translateOne(withResilience(engine, fast), request, controller.signal)).rejects.toThrow(
        'too late',
      );
      expect(calls).toHaveLength(0);
    });
  });
});
