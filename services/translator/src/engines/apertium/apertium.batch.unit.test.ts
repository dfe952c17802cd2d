import { describe, expect, it } from '@jest/globals';

import { EngineError } from '../engine.js';
import { apertiumRequests, MAX_REQUEST_CHARS, SEPARATOR, type ApertiumRequest } from './apertium.batch.js';

const only = (requests: ReturnType<typeof apertiumRequests>): ApertiumRequest[] =>
  requests.map((request) => {
    if (request instanceof EngineError) throw request;
    return request;
  });

describe('texts packed into APy requests', () => {
  it('sends consecutive texts in one request, each between separators, with its specials escaped', () => {
    const [request, ...rest] = only(apertiumRequests(['Good morning', 'a < b & c', '']));

    expect(rest).toEqual([]);
    expect(request?.q).toBe('<hr>Good morning<hr>a &lt; b &amp; c<hr><hr>');
  });

  it('starts a new request before one would pass MAX_REQUEST_CHARS, counting character references', () => {
    const plain = 'x'.repeat(1000);
    const escaped = '*'.repeat(400); // 400 characters, 2,000 once sent as &ast;
    const requests = only(apertiumRequests([plain, plain, escaped, plain, plain, plain]));

    expect(requests.map(({ q }) => q.split(SEPARATOR).length - 2)).toEqual([3, 3]);
    for (const { q } of requests) expect(q.length).toBeLessThanOrEqual(MAX_REQUEST_CHARS);
  });

  it('gives a text too long for any request its own error, in its place between the others', () => {
    const requests = apertiumRequests(['one', '@'.repeat(700), 'two']);

    expect(requests).toHaveLength(3);
    expect(requests[1]).toBeInstanceOf(EngineError);
    expect(requests[1]).toMatchObject({ engine: 'apertium', kind: 'rejected' });
    expect((requests[0] as ApertiumRequest).q).toBe('<hr>one<hr>');
    expect((requests[2] as ApertiumRequest).q).toBe('<hr>two<hr>');
  });

  it('cuts the answer back at the separators, each text with its own unknown words and references decoded', () => {
    const [request] = only(apertiumRequests(['a', 'b', 'c']));
    const answer = '<hr>El *Xyzzy<hr> Cuesta 5 &ast; 3<hr><hr>';

    expect(request?.answers(answer)).toEqual([
      { text: 'El Xyzzy', truncated: false, unknownWords: 1 },
      { text: ' Cuesta 5 * 3', truncated: false, unknownWords: 0 },
      { text: '', truncated: false, unknownWords: 0 },
    ]);
  });

  it('fails every text of a request whose answer lost or gained a separator, rather than shift them', () => {
    const [request] = only(apertiumRequests(['a', 'b', 'c']));

    for (const answer of [
      '<hr>uno<hr>dos tres<hr>',
      '<hr>uno<hr>dos<hr>tres<hr>cuatro<hr>',
      'uno<hr>dos<hr>tres<hr>',
    ]) {
      const items = request?.answers(answer) ?? [];
      expect(items).toHaveLength(3);
      for (const item of items) expect(item).toMatchObject({ engine: 'apertium', kind: 'rejected' });
    }
  });
});
