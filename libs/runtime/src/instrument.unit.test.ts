import { describe, expect, it } from '@jest/globals';

import { statementAttributes, withoutQuery } from './instrument.js';

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

describe('statementAttributes (the statement of a pg span)', () => {
  it('replaces every literal MikroORM inlined, escaped quotes and bytea included', () => {
    const sql =
      "insert into t (a, b, c, n) values ('腾讯控股', 'it''s', E'\\\\x4839', 3) where k = '845e' and x = ''";
    expect(statementAttributes(sql)).toEqual({
      'db.query.text': "insert into t (a, b, c, n) values ('?', '?', E'?', 3) where k = '?' and x = '?'",
    });
  });

  it('hides an unterminated literal to the end', () => {
    expect(statementAttributes("select 'abc''")).toEqual({ 'db.query.text': "select '?'" });
  });
});
