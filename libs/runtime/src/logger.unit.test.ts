import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';

import { BatchedWriter } from './logger.js';

describe('BatchedWriter', () => {
  it('holds lines until flushed, then writes them in one piece, in order', () => {
    const written: string[] = [];
    const writer = new BatchedWriter((text) => written.push(text), 1000, 60_000);
    writer.write('one\n');
    writer.write('two\n');
    expect(written).toEqual([]);
    writer.flush();
    expect(written).toEqual(['one\ntwo\n']);
    writer.flush();
    expect(written).toEqual(['one\ntwo\n']);
  });

  it('writes at once when the lines held reach its size', () => {
    const written: string[] = [];
    const writer = new BatchedWriter((text) => written.push(text), 8, 60_000);
    writer.write('1234');
    writer.write('5678');
    writer.write('9');
    expect(written).toEqual(['12345678']);
    writer.flush();
    expect(written).toEqual(['12345678', '9']);
  });

  it("writes pino's lines and answers logger.flush(cb) once they are written", () => {
    const written: string[] = [];
    const logger = pino(
      { base: null, timestamp: false },
      new BatchedWriter((t) => written.push(t), 1000, 60_000),
    );
    logger.info({ a: 1 }, 'first');
    logger.warn('second');
    let flushed = false;
    logger.flush(() => {
      flushed = true;
    });
    expect(flushed).toBe(true);
    expect(
      written
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { msg: string })
        .map((l) => l.msg),
    ).toEqual(['first', 'second']);
  });
});
