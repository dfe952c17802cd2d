import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { startTestTranslator, type TestTranslator } from '../../test/translator-fixture.js';

// The translate lane answers plain POST /translate requests before Express; each case is sent
// through the lane and through Express (`content-encoding: identity`: the lane takes no encoded
// body), and the two answers must be the same but for the per-request fields (id, duration, date).
const apertiumUrl = process.env.APERTIUM_URL;
if (!apertiumUrl) throw new Error('APERTIUM_URL is not set: jest global setup starts APy');

const LANE = 'translator_translate_lane_requests_total';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

describe('the translate lane: the same answers as the Express route', () => {
  let translator: TestTranslator;

  beforeAll(async () => {
    translator = await startTestTranslator({ APERTIUM_URL: apertiumUrl });
  });

  afterAll(async () => {
    await translator?.close();
  });

  /** The lane's counter of one outcome, from /metrics. */
  async function laneCount(outcome: 'answered' | 'handed_over'): Promise<number> {
    const text = await (await fetch(`${translator.url}/metrics`)).text();
    const line = text.split('\n').find((row) => row.startsWith(`${LANE}{outcome="${outcome}"`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  async function send(body: string, viaExpress: boolean, id: string): Promise<Answer> {
    const res = await fetch(`${translator.url}/translate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': id,
        ...(viaExpress ? { 'content-encoding': 'identity' } : {}),
      },
      body,
    });
    const headers = Object.fromEntries(res.headers);
    // The date, and the length, which counts the digits of `duration` (the body must parse whole).
    delete headers.date;
    delete headers['content-length'];
    const parsed = (await res.json()) as Record<string, unknown>;
    // Per request: how long it took, and whether an earlier request had cached it.
    const { duration: _duration, cached: _cached, ...rest } = parsed;
    return { status: res.status, headers, body: rest };
  }

  /** The answer of the lane, then of Express, with how the lane's counters moved. */
  async function bothWays(body: string) {
    const before = { answered: await laneCount('answered'), handed: await laneCount('handed_over') };
    const lane = await send(body, false, 'lane-1');
    const after = { answered: await laneCount('answered'), handed: await laneCount('handed_over') };
    const express = await send(body, true, 'lane-1');
    return {
      lane,
      express,
      answered: after.answered - before.answered,
      handedOver: after.handed - before.handed,
    };
  }

  it('answers a miss itself, as the route does', async () => {
    // Two sentences of the same shape, each a miss: the answers differ only in the words and the times.
    const before = await laneCount('answered');
    const lane = await send(
      JSON.stringify({ text: 'The shop opens on Monday.', source: 'en', target: 'es' }),
      false,
      'a',
    );
    expect((await laneCount('answered')) - before).toBe(1);
    const express = await send(
      JSON.stringify({ text: 'The shop closes on Monday.', source: 'en', target: 'es' }),
      true,
      'a',
    );
    expect(lane.status).toBe(200);
    expect(lane.body.translatedText).toBe('La tienda abre el lunes.');
    expect(express.body.translatedText).toBe('La tienda cierra el lunes.');
    const timeless = ({ headers, body }: Answer) => ({
      headers,
      body: {
        ...body,
        translatedText: undefined,
        attempts: (body.attempts as Record<string, unknown>[]).map((attempt) => ({ ...attempt, ms: 0 })),
      },
    });
    expect(timeless(lane)).toEqual(timeless(express));
    expect(lane.body.engine).toBe('apertium');
  });

  it('answers a hit itself, as the route does', async () => {
    const body = JSON.stringify({ text: 'The market is busy on Monday.', source: 'en', target: 'es' });
    await send(body, false, 'warm');
    const { lane, express, answered, handedOver } = await bothWays(body);
    expect([answered, handedOver]).toEqual([1, 0]);
    expect(lane.body).toMatchObject({ translatedText: 'La lonja es ocupada el lunes.', attempts: [] });
    expect(lane).toEqual(express);
  });

  it.each([
    ['an unknown target code', { text: 'Hello', source: 'en', target: 'xx' }, 'UNSUPPORTED_LANGUAGE'],
    ['a pair no engine serves', { text: 'Hello', source: 'en', target: 'de' }, 'UNSUPPORTED_LANGUAGE_PAIR'],
  ])('hands the use case error for %s to the error handler', async (_case, body, error) => {
    const { lane, express, answered, handedOver } = await bothWays(JSON.stringify(body));
    expect([answered, handedOver]).toEqual([0, 1]);
    expect(lane.body.error).toBe(error);
    expect(lane).toEqual(express);
  });

  it.each([
    ['an unknown field', '{"text":"Hello","target":"es","targt":"de"}'],
    ['an empty text', '{"text":"","target":"es"}'],
    ['a source that is not a string', '{"text":"Hello","source":null,"target":"es"}'],
    ['an own __proto__ key', '{"text":"Hello","target":"es","__proto__":"x"}'],
    ['an array', '[{"text":"Hello","target":"es"}]'],
    ['JSON that does not parse', '{"text": "Hello", "target": '],
    ['a JSON string', '"Hello"'],
  ])('leaves a body with %s to the route, which answers it as before', async (_case, body) => {
    const { lane, express, answered, handedOver } = await bothWays(body);
    expect([answered, handedOver]).toEqual([0, 1]);
    expect(lane.status).toBe(400);
    expect(lane).toEqual(express);
  });
});
