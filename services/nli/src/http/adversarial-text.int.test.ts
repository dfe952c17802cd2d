import { describe, expect, it } from '@jest/globals';
import { Tokenizer } from '@huggingface/tokenizers';
import { tinyNliModelFiles } from '@tp/models';
import { classifyRequest, detectRequest } from '@tp/service-contracts';

import { adversarialTexts, callsOverLimit } from '@tp/test/harness/event-loop-block';
import { loadNliConfig } from '../config.js';
import { PairEncoder } from '../model/pair-encoder.js';
import { bodyLimit } from './fields.js';
import { parseBody } from './parse-body.js';

/**
 * The nli service's handling of user text on the strings that make backtracking patterns slow: the
 * validation of a request body at the largest text its body limit lets through, and the tokenizer and
 * pair encoder at the longest text validation accepts (NLI_MAX_TEXT_CHARS). No call may hold the event
 * loop more than 50 ms (issue 16). Timed, so in the integration tier.
 */
const LIMIT_MS = 50;
const config = loadNliConfig({});
const limits = { maxTextChars: config.NLI_MAX_TEXT_CHARS, maxLabels: config.NLI_MAX_LABELS };
/** Characters of the longest text a body within the limit can carry. */
const BODY_TEXT = bodyLimit(limits) - 1024;

const pieces = {
  prefixes: ['[SEP] ', '[CLS]', '##ab ', 'a.b, ', '{} ', '\\u00e9', '😀 ', 'ǅ'],
  delimiters: ['[', ']', '#', ' ', '.', 'a', '\u0301', '\u200b', '😀', '\\'],
};

function issuesOf(run: () => unknown): unknown {
  try {
    return run();
  } catch (err) {
    return err;
  }
}

describe('nli text handling on adversarial input', () => {
  it('body validation (/classify and /detect) blocks at most 50 ms up to the body limit', async () => {
    const texts = adversarialTexts(BODY_TEXT, pieces.prefixes, pieces.delimiters);
    const classify = classifyRequest(limits);
    const detect = detectRequest(limits);
    const validate = (text: string) => {
      issuesOf(() => parseBody(classify, { text, candidate_labels: ['spam', text.slice(0, 100)] }));
      issuesOf(() => parseBody(detect, { text }));
    };
    expect(await callsOverLimit(validate, texts, LIMIT_MS)).toEqual([]);
  });

  it('tokenizing and pairing a text blocks at most 50 ms at NLI_MAX_TEXT_CHARS', async () => {
    const files = tinyNliModelFiles();
    const json = (path: string) => JSON.parse(new TextDecoder().decode(files.get(path))) as object;
    const encoder = new PairEncoder(
      new Tokenizer(json('tokenizer.json'), json('tokenizer_config.json')),
      512,
    );
    const texts = adversarialTexts(limits.maxTextChars, pieces.prefixes, pieces.delimiters);
    const encode = (text: string) => encoder.pair(encoder.tokens(text), 'This example is spam.');
    expect(await callsOverLimit(encode, texts, LIMIT_MS)).toEqual([]);
  });
});
