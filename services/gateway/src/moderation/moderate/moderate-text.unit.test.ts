import { describe, expect, it } from '@jest/globals';
import { AppError } from '@tp/runtime';

import { TermCatalogue } from '../terms/term-catalogue.js';
import type { TermSource } from '../terms/moderation-term.store.js';
import { ModerateText, type NliDetect } from './moderate-text.js';

const noCustomTerms: TermSource = { list: async () => [], revision: async () => '' };
const catalogue = new TermCatalogue(noCustomTerms, [
  { term: 'badword', kind: 'block', language: 'en', source: 'list' },
]);
const signal = new AbortController().signal;

function moderator(nliDetect?: NliDetect, nliTimeoutMs = 1000) {
  return new ModerateText(catalogue, { nliDetect, nliTimeoutMs });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe('ModerateText', () => {
  it('in keyword mode answers from the terms alone, with the time it took', async () => {
    const calls: string[] = [];
    const result = await moderator(async (text) => calls.push(text)).execute(
      { text: 'a badword here', mode: 'keyword' },
      signal,
    );
    expect(result).toMatchObject({
      flagged: true,
      mode: 'keyword',
      matches: [{ term: 'badword', start: 2 }],
    });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(result.nli).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('in hybrid mode does not ask NLI when a term was found', async () => {
    const calls: string[] = [];
    const result = await moderator(async (text) => {
      calls.push(text);
      return { is_safe: true };
    }).execute({ text: 'badword', mode: 'hybrid' }, signal);
    expect(result.flagged).toBe(true);
    expect(calls).toEqual([]);
  });

  it('in hybrid mode asks NLI about a clean text and follows its verdict', async () => {
    const nli: NliDetect = async (text) => ({ is_safe: !text.includes('veiled'), risk_level: 'high' });
    const unsafe = await moderator(nli).execute({ text: 'a veiled threat', mode: 'hybrid' }, signal);
    expect(unsafe).toMatchObject({ flagged: true, matches: [], nli: { is_safe: false, risk_level: 'high' } });
    const safe = await moderator(nli).execute({ text: 'a nice day', mode: 'hybrid' }, signal);
    expect(safe).toMatchObject({ flagged: false, matches: [], nli: { is_safe: true } });
  });

  it('answers NLI_UNAVAILABLE when NLI fails, is not configured, or gives no verdict', async () => {
    const down = await failure(
      moderator(() => Promise.reject(new Error('ECONNREFUSED'))).execute(
        { text: 'x', mode: 'hybrid' },
        signal,
      ),
    );
    expect(down).toMatchObject({ code: 'NLI_UNAVAILABLE', details: { dependency: 'nli' } });
    expect(down.message).toMatch(/NLI service is unavailable/);

    const missing = await failure(moderator().execute({ text: 'x', mode: 'hybrid' }, signal));
    expect(missing.code).toBe('NLI_UNAVAILABLE');
    expect(missing.message).toMatch(/not configured/);

    const odd = await failure(
      moderator(async () => ({ label: 'safe' })).execute({ text: 'x', mode: 'hybrid' }, signal),
    );
    expect(odd.message).toMatch(/without an is_safe verdict/);
  });

  it('gives up on an NLI call after the timeout, even one that ignores its signal', async () => {
    const never: NliDetect = () => new Promise(() => {});
    const started = performance.now();
    const err = await failure(moderator(never, 30).execute({ text: 'x', mode: 'hybrid' }, signal));
    expect(err.code).toBe('NLI_UNAVAILABLE');
    expect(err.message).toMatch(/did not answer within 30 ms/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('gives NLI the request id and a signal that aborts when the client goes away', async () => {
    const client = new AbortController();
    let seen: { requestId?: string; signal?: AbortSignal } = {};
    const nli: NliDetect = (_text, nliSignal, requestId) => {
      seen = { requestId, signal: nliSignal };
      return new Promise(() => {});
    };
    const pending = failure(
      moderator(nli, 5000).execute({ text: 'x', mode: 'hybrid' }, client.signal, 'req-7'),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.requestId).toBe('req-7');
    expect(seen.signal?.aborted).toBe(false);
    client.abort(new Error('client went away'));
    expect(seen.signal?.aborted).toBe(true);
    expect((await pending).code).toBe('NLI_UNAVAILABLE');
  });

  it("passes the NLI client's own AppError on", async () => {
    const disabled = new AppError('NLI_DISABLED', 'NLI moderation is switched off');
    const err = await failure(
      moderator(() => Promise.reject(disabled)).execute({ text: 'x', mode: 'hybrid' }, signal),
    );
    expect(err).toBe(disabled);
  });
});
