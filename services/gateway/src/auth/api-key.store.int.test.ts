import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectDatabase, type Orm } from '@tp/db';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { waitFor } from '@tp/test/harness/wait';
import { ApiKeyStore } from './api-key.store.js';

let db: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await connectDatabase({ url: db.url, poolMax: 2 });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

describe('ApiKeyStore lookups', () => {
  it('knows a created key, tells a revoked one, and does not know a made-up one', async () => {
    const store = new ApiKeyStore(orm);
    const { key, id } = await store.create('client', 'partner');
    expect(await store.lookup(key)).toEqual({
      kind: 'valid',
      principal: {
        keyId: id,
        name: 'partner',
        role: 'client',
        limits: { requestsPerDay: null, tokensPerDay: null, tokensPerMonth: null, charactersPerMonth: null },
      },
    });
    await store.revoke(id);
    expect(await store.lookup(key)).toEqual({ kind: 'revoked' });
    expect(await store.lookup(`tp_${'q'.repeat(43)}`)).toEqual({ kind: 'unknown' });
  });

  it('remembers a lookup for the configured time, so a revocation elsewhere applies within it', async () => {
    // Long enough that the revocation below ends well inside it on a busy machine.
    const rememberMs = 3000;
    const gateway = new ApiKeyStore(orm, rememberMs);
    const cli = new ApiKeyStore(orm);
    const { key, id } = await cli.create('client', 'remembered');
    const remembered = performance.now();
    expect((await gateway.lookup(key)).kind).toBe('valid');

    await cli.revoke(id);
    expect(performance.now() - remembered).toBeLessThan(rememberMs);
    expect((await gateway.lookup(key)).kind).toBe('valid');
    await waitFor('the revocation seen', async () => (await gateway.lookup(key)).kind === 'revoked', 10_000);
    expect(performance.now() - remembered).toBeGreaterThanOrEqual(rememberMs);
  });

  it('forgets at once a key revoked through the same store', async () => {
    const gateway = new ApiKeyStore(orm, 60_000);
    const { key, id } = await gateway.create('client', 'revoked here');
    expect((await gateway.lookup(key)).kind).toBe('valid');
    await gateway.revoke(id);
    expect((await gateway.lookup(key)).kind).toBe('revoked');
  });

  it('does not keep a lookup that was in flight while the key was revoked here', async () => {
    const store = new ApiKeyStore(orm, 60_000);
    const { key, id } = await store.create('client', 'racing');
    // The lookup's query may read the key before the revocation commits; whatever it read, the
    // next request must see the revocation.
    await Promise.all([store.lookup(key), store.revoke(id)]);
    expect(await store.lookup(key)).toEqual({ kind: 'revoked' });
  });
});
