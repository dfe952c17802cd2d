import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiKey, connectDatabase, type Orm } from '@tp/db';

import { createTestDatabase, type TestDatabase } from '@tp/test/harness/databases';
import { REPO_ROOT } from '@tp/test/harness/processes';
import { hashApiKey } from '../auth/api-key.js';
import { ApiKeyStore } from '../auth/api-key.store.js';

const run = promisify(execFile);
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

/** The CLI from its TypeScript source (the npm script runs the same file, compiled). */
async function keys(...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      `${REPO_ROOT}node_modules/.bin/tsx`,
      ['--conditions=@tp/source', `${REPO_ROOT}services/gateway/src/keys/keys.cli.ts`, ...args],
      { env: { ...process.env, DATABASE_URL: db.url } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run keys', () => {
  it('create prints only the new key on stdout and stores only its hash', async () => {
    const { code, stdout } = await keys('create', '--role', 'admin', '--name', 'ops');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^tp_[A-Za-z0-9_-]{43}\n$/);
    const key = stdout.trim();
    const rows = (await orm.em.fork().find(ApiKey, {})).map(({ keyHash, name, role }) => ({
      keyHash,
      name,
      role,
    }));
    expect(rows).toEqual([{ keyHash: hashApiKey(key), name: 'ops', role: 'admin' }]);
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(await new ApiKeyStore(orm).lookup(key)).toMatchObject({
      kind: 'valid',
      principal: { role: 'admin' },
    });
  });

  it('list shows keys without the keys themselves, and revoke revokes by id', async () => {
    const created = (await keys('create', '--role', 'client')).stdout.trim();
    const listed = JSON.parse((await keys('list', '--json')).stdout) as {
      id: string;
      prefix: string;
      revoked_at: string | null;
    }[];
    const entry = listed.find((k) => created.startsWith(k.prefix));
    expect(entry).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(created);

    const revoked = await keys('revoke', entry!.id);
    expect(revoked.code).toBe(0);
    expect(await new ApiKeyStore(orm).lookup(created)).toEqual({ kind: 'revoked' });
  });

  it('create sets budgets, and limits changes only the ones given (none removes one)', async () => {
    const created = await keys(
      'create',
      '--role',
      'client',
      '--requests-per-day',
      '100',
      '--tokens-per-day',
      '5000',
      '--tokens-per-month',
      '90000',
      '--characters-per-month',
      '2000000',
    );
    expect(created.code).toBe(0);
    const principal = async () => {
      const found = await new ApiKeyStore(orm).lookup(created.stdout.trim());
      if (found.kind !== 'valid') throw new Error(`key is ${found.kind}`);
      return found.principal;
    };
    const { keyId, limits } = await principal();
    expect(limits).toEqual({
      requestsPerDay: 100,
      tokensPerDay: 5000,
      tokensPerMonth: 90000,
      charactersPerMonth: 2_000_000,
    });
    const changed = await keys(
      'limits',
      keyId,
      '--tokens-per-day',
      'none',
      '--requests-per-day',
      '7',
      '--characters-per-month',
      'none',
    );
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain(
      'requests/day 7, tokens/day none, tokens/month 90000, characters/month none',
    );
    expect((await principal()).limits).toEqual({
      requestsPerDay: 7,
      tokensPerDay: null,
      tokensPerMonth: 90000,
      charactersPerMonth: null,
    });
    const bad = await keys('limits', keyId, '--tokens-per-day', '-3');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('must be a whole number from 0 to');
  });

  it('refuses an unknown role with a clear message and exit code 1', async () => {
    const { code, stdout, stderr } = await keys('create', '--role', 'root');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('must be one of client, admin');
  });

  it('create --modules makes a key scoped to those modules, shown by list', async () => {
    const { code, stdout, stderr } = await keys('create', '--role', 'client', '--modules', 'shop,cms,shop');
    expect(code).toBe(0);
    expect(stderr).toContain('for modules cms,shop');
    const key = stdout.trim();
    expect(await new ApiKeyStore(orm).lookup(key)).toMatchObject({
      kind: 'valid',
      principal: { role: 'client', modules: ['cms', 'shop'] },
    });
    const listed = JSON.parse((await keys('list', '--json')).stdout) as {
      prefix: string;
      modules: string[] | null;
    }[];
    expect(listed.find((k) => key.startsWith(k.prefix))?.modules).toEqual(['cms', 'shop']);
    expect((await keys('list')).stdout).toContain('modules cms,shop');
  });

  it('refuses malformed modules and a scoped admin key, creating nothing', async () => {
    const before = await orm.em.fork().count(ApiKey, {});
    for (const args of [
      ['--role', 'client', '--modules', 'Shop'],
      ['--role', 'client', '--modules', 'shop,,cms'],
      ['--role', 'client', '--modules', ''],
      ['--role', 'admin', '--modules', 'shop'],
    ]) {
      const { code, stdout, stderr } = await keys('create', ...args);
      expect({ args, code, stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(stderr).toMatch(/modules|characters/);
    }
    expect(await orm.em.fork().count(ApiKey, {})).toBe(before);
  });

  it('reports an unknown key id on revoke', async () => {
    const { code, stderr } = await keys('revoke', '33333333-3333-4333-8333-333333333333');
    expect(code).toBe(1);
    expect(stderr).toContain('no API key with id');
  });
});
