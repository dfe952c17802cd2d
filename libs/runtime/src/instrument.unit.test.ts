import { describe, expect, it } from '@jest/globals';

import { withoutQuery } from './instrument.js';

describe('withoutQuery (the URL attributes of an outgoing request span)', () => {
  it('drops the query string, which can hold the text sent to an engine or an e-mail address', () => {
    expect(withoutQuery('https://api.mymemory.translated.net', '/get?q=secret%20text&de=a%40b.c')).toEqual({
      'url.full': 'https://api.mymemory.translated.net/get',
      'url.query': '?REDACTED',
    });
  });

  it('leaves a URL without a query string to the instrumentation', () => {
    expect(withoutQuery('http://127.0.0.1:5000', '/translate')).toEqual({});
  });
});
