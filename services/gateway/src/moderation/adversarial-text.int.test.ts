import { describe, expect, it } from '@jest/globals';

import { adversarialTexts, eventLoopBlockMs } from '../../../../test/harness/event-loop-block.js';
import { parseBearer } from '../auth/api-key.js';
import { textOf } from '../chat/guardrail.js';
import { listEntries } from './matching/term-lists.js';
import { ModerateText } from './moderate/moderate-text.js';
import { normalise } from './normalise/normalise.js';
import type { TermSource } from './terms/moderation-term.store.js';
import { TermCatalogue } from './terms/term-catalogue.js';

/**
 * The gateway's handling of user text (moderation folding and matching with the real term lists,
 * the chat guardrail's reading of messages, the Authorization header) on the strings that make
 * backtracking patterns slow, at 50,000 characters: no call may hold the event loop more than 50 ms
 * (issue 16). Timed, so in the integration tier; the least of three tries counts.
 */
const MAX = 50_000;
const LIMIT_MS = 50;
const noCustomTerms: TermSource = { list: async () => [], revision: async () => '' };

const texts = adversarialTexts(
  MAX,
  ['f.u.c.k ', 'a55 ', 'ｆｕｃｋ', '🅰', 'Bearer tp_'],
  ['a', '.', ' ', '\u200b', '\u0301', '5', '@', '🅰', '\u202e'],
);

describe('gateway text handling on adversarial input', () => {
  it('folding, term matching, guardrail text and the Bearer header block at most 50 ms each', async () => {
    const moderate = new ModerateText(new TermCatalogue(noCustomTerms, listEntries()), {
      nliTimeoutMs: 1000,
    });
    const signal = new AbortController().signal;
    await moderate.execute({ text: 'warm up', mode: 'keyword' }, signal);
    const calls: readonly [string, (text: string) => unknown][] = [
      ['normalise', (text) => normalise(text)],
      ['moderate', (text) => moderate.execute({ text, mode: 'keyword' }, signal)],
      [
        'textOf',
        (text) =>
          textOf([
            { type: 'text', text },
            { type: 'input_text', text },
          ]),
      ],
      ['parseBearer', (text) => parseBearer(`Bearer ${text}`)],
    ];
    const slow: string[] = [];
    for (const [call, run] of calls) {
      for (const [name, text] of texts) {
        const ms = await eventLoopBlockMs(() => run(text));
        if (ms > LIMIT_MS) slow.push(`${call} on ${name}: ${ms.toFixed(0)} ms`);
      }
    }
    expect(slow).toEqual([]);
  }, 300_000);
});
