import { describe, expect, it } from '@jest/globals';

import { adversarialTexts, callsOverLimit } from '@tp/test/harness/event-loop-block';
import { parseBearer } from '../auth/api-key.js';
import { readableText, textOf, type ChatMessage } from '../chat/guardrail.js';
import { nliChunks } from '../chat/nli-chunks.js';
import { listEntries } from './matching/term-lists.js';
import { ModerateText } from './moderate/moderate-text.js';
import { normalise } from './normalise/normalise.js';
import type { TermSource } from './terms/moderation-term.store.js';
import { TermCatalogue } from './terms/term-catalogue.js';

/**
 * The gateway's handling of user text (moderation folding and matching with the real term lists,
 * the chat guardrail's reading of messages and its NLI pieces, the Authorization header) on the strings that make
 * backtracking patterns slow, at 50,000 characters: no call may hold the event loop more than 50 ms
 * (issue 16). Timed, so in the integration tier; a call over the limit is measured again before it
 * counts (see callsOverLimit).
 */
const MAX = 50_000;
const LIMIT_MS = 50;
const noCustomTerms: TermSource = { list: async () => [], revision: async () => '' };

const texts = adversarialTexts(
  MAX,
  ['f.u.c.k ', 'a55 ', 'ｆｕｃｋ', '🅰', 'Bearer tp_', '😀 '],
  ['a', '.', ' ', '\n', '\u200b', '\u0301', '5', '@', '🅰', '😀', '\u202e'],
);

/** A message with the text in every place the guardrail reads: name, parts, a tool result, call arguments. */
function toolMessage(text: string): ChatMessage {
  const message = {
    role: 'tool',
    name: text.slice(0, 64),
    content: [
      { type: 'text', text },
      { type: 'tool_result', content: [{ type: 'text', text }] },
    ],
    tool_calls: [{ function: { name: 'f', arguments: text } }],
  };
  return message;
}

describe('gateway text handling on adversarial input', () => {
  it('folding, term matching, guardrail text, NLI pieces and the Bearer header block at most 50 ms each', async () => {
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
      ['readableText', (text) => readableText(toolMessage(text))],
      ['nliChunks 2000', (text) => nliChunks(text, 2000)],
      ['nliChunks 50', (text) => nliChunks(text, 50)],
      ['parseBearer', (text) => parseBearer(`Bearer ${text}`)],
    ];
    const slow: string[] = [];
    for (const [call, run] of calls) {
      for (const line of await callsOverLimit(run, texts, LIMIT_MS)) slow.push(`${call} on ${line}`);
    }
    expect(slow).toEqual([]);
  }, 120_000);
});
