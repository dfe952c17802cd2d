import { describe, expect, it } from '@jest/globals';

import { FrontendMessageCounter } from './pg-round-trips.js';

/** A typed frontend message: type byte, length (itself included), body. */
const typed = (type: string, body: string) => {
  const payload = Buffer.from(body);
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(payload.length + 4, 1);
  return Buffer.concat([header, payload]);
};
const startup = () => {
  const params = Buffer.from('user\0postgres\0\0');
  const header = Buffer.alloc(8);
  header.writeInt32BE(params.length + 8, 0);
  header.writeInt32BE(196608, 4);
  return Buffer.concat([header, params]);
};

describe('FrontendMessageCounter', () => {
  const wire = Buffer.concat([
    startup(),
    typed('p', 'secret\0'), // password: no round trip of its own in this count
    typed('Q', 'begin\0'),
    typed('Q', `insert into t values ${'(1),'.repeat(5000)}(2)\0`),
    typed('P', '\0select $1\0\0\0'),
    typed('B', '\0\0\0\0\0\0\0'),
    typed('E', '\0\0\0\0\0'),
    typed('S', ''),
    typed('Q', 'commit\0'),
  ]);

  it('counts simple queries and syncs, skipping the startup message and the bodies', () => {
    const counter = new FrontendMessageCounter();
    counter.push(wire);
    expect(counter.roundTrips).toBe(4);
  });

  it('counts the same whatever the chunks the bytes arrive in', () => {
    for (const size of [1, 3, 7, 100, 4096]) {
      const counter = new FrontendMessageCounter();
      for (let at = 0; at < wire.length; at += size) counter.push(wire.subarray(at, at + size));
      expect(counter.roundTrips).toBe(4);
    }
  });

  it('counts every byte the client sent, in whatever chunks', () => {
    const counter = new FrontendMessageCounter();
    for (let at = 0; at < wire.length; at += 100) counter.push(wire.subarray(at, at + 100));
    expect(counter.bytes).toBe(wire.length);
  });

  it('does not count a query text that merely contains the letter Q', () => {
    const counter = new FrontendMessageCounter();
    counter.push(Buffer.concat([startup(), typed('Q', "select 'QQQ SSS'\0")]));
    expect(counter.roundTrips).toBe(1);
  });
});
