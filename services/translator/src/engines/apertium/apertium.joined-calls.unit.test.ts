import { describe, expect, it } from '@jest/globals';

import type { EngineItem } from '../engine.js';
import { JoinedCalls } from './apertium.joined-calls.js';

/** A stand-in for APy's requests: each send waits until the test answers it (upper-cased texts). */
function requests() {
  const sent: { texts: readonly string[]; answer(): void; fail(error: Error): void }[] = [];
  const send = (texts: readonly string[]) =>
    new Promise<EngineItem[]>((resolve, reject) => {
      sent.push({
        texts,
        answer: () => resolve(texts.map((text) => ({ text: text.toUpperCase(), truncated: false }))),
        fail: reject,
      });
    });
  return { sent, send };
}

const texts = (items: readonly EngineItem[]) => items.map((item) => ('text' in item ? item.text : item));
const settle = () => new Promise((resolve) => setImmediate(resolve));
const live = () => new AbortController().signal;
/** Each text counts its length and 4 (a separator). */
const length = (text: string) => text.length + 4;

describe('Apertium calls of one direction joined while APy is busy', () => {
  it('sends a call at once when no request of its direction is out', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 5000);
    const answer = calls.translate(['one', 'two'], live());

    expect(sent.map((request) => request.texts)).toEqual([['one', 'two']]);
    sent[0]?.answer();
    expect(texts(await answer)).toEqual(['ONE', 'TWO']);
  });

  it('sends the calls that came meanwhile as one request when the one out ends, each answered its own texts', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 5000);
    const first = calls.translate(['a'], live());
    const second = calls.translate(['b', 'c'], live());
    const third = calls.translate(['d'], live());

    expect(sent).toHaveLength(1);
    sent[0]?.answer();
    await settle();
    expect(sent.map((request) => request.texts)).toEqual([['a'], ['b', 'c', 'd']]);
    sent[1]?.answer();
    expect(texts(await first)).toEqual(['A']);
    expect(texts(await second)).toEqual(['B', 'C']);
    expect(texts(await third)).toEqual(['D']);
  });

  it('keeps up to maxInFlight requests out before calls wait', () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 2, length, 5000);
    for (const text of ['a', 'b', 'c', 'd']) void calls.translate([text], live());

    expect(sent.map((request) => request.texts)).toEqual([['a'], ['b']]);
  });

  it('joins waiting calls only while their texts fit maxSize together', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 30);
    for (const text of ['first', 'x'.repeat(10), 'y'.repeat(10), 'z'.repeat(10)]) {
      void calls.translate([text], live());
    }
    sent[0]?.answer();
    await settle();

    // Each text counts with its separator (4 characters): two of 14 fit 30, a third does not.
    expect(sent.map((request) => request.texts.length)).toEqual([1, 2]);
  });

  it('fills a request with the first texts of a call that does not fit whole, and sends the rest in the next', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 30);
    void calls.translate(['first'], live());
    const second = calls.translate(['x'.repeat(10)], live());
    const third = calls.translate(['y'.repeat(10), 'z'.repeat(10), 'w'.repeat(10)], live());
    sent[0]?.answer();
    await settle();
    // Each text counts 14 with its separator: the second call and the third's first text fill 30.
    expect(sent[1]?.texts).toEqual(['x'.repeat(10), 'y'.repeat(10)]);
    sent[1]?.answer();
    await settle();
    expect(sent[2]?.texts).toEqual(['z'.repeat(10), 'w'.repeat(10)]);
    sent[2]?.answer();
    expect(texts(await second)).toEqual(['X'.repeat(10)]);
    expect(texts(await third)).toEqual(['Y'.repeat(10), 'Z'.repeat(10), 'W'.repeat(10)]);
  });

  it('sends the parts of a call too large for one request at once, up to maxInFlight, in order', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 2, length, 30);
    const answer = calls.translate(
      ['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10), 'd'.repeat(10), 'e'],
      live(),
    );

    expect(sent.map((request) => request.texts.length)).toEqual([2, 2]);
    sent[1]?.answer();
    await settle();
    expect(sent[2]?.texts).toEqual(['e']);
    sent[2]?.answer();
    sent[0]?.answer();
    expect(texts(await answer)).toEqual([
      'A'.repeat(10),
      'B'.repeat(10),
      'C'.repeat(10),
      'D'.repeat(10),
      'E',
    ]);
  });

  it('fails a call whose first part failed, and never sends the rest of its texts', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 30);
    const answer = calls.translate(['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10)], live());
    const other = calls.translate(['d'], live());
    sent[0]?.fail(new Error('APy answered 503'));

    await expect(answer).rejects.toThrow('APy answered 503');
    await settle();
    expect(sent.map((request) => request.texts)).toEqual([['a'.repeat(10), 'b'.repeat(10)], ['d']]);
    sent[1]?.answer();
    expect(texts(await other)).toEqual(['D']);
  });

  it('fails each call of a joint request that failed, and goes on with the next', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 5000);
    void calls.translate(['a'], live()).catch(() => undefined);
    const second = calls.translate(['b'], live());
    const third = calls.translate(['c'], live());
    sent[0]?.answer();
    await settle();
    sent[1]?.fail(new Error('APy answered 503'));

    await expect(second).rejects.toThrow('APy answered 503');
    await expect(third).rejects.toThrow('APy answered 503');
    const fourth = calls.translate(['d'], live());
    expect(sent[2]?.texts).toEqual(['d']);
    sent[2]?.answer();
    expect(texts(await fourth)).toEqual(['D']);
  });

  it('rejects a waiting call whose caller gave up, and never sends its texts', async () => {
    const { sent, send } = requests();
    const calls = new JoinedCalls(send, 1, length, 5000);
    void calls.translate(['a'], live());
    const caller = new AbortController();
    const abandoned = calls.translate(['gone'], caller.signal);
    const kept = calls.translate(['b'], live());
    caller.abort(new Error('caller left'));

    await expect(abandoned).rejects.toThrow('caller left');
    sent[0]?.answer();
    await settle();
    expect(sent[1]?.texts).toEqual(['b']);
    sent[1]?.answer();
    expect(texts(await kept)).toEqual(['B']);
  });
});
