import { describe, expect, it } from '@jest/globals';
import { OutboxMessage } from '@tp/db';
import { REPLAYED_FROM_HEADER } from '@tp/pipeline';
import { EventCodec } from '@tp/schemas';

import { addDeadLetters, deadLetter } from '@tp/test/harness/dead-letters';
import { useDlqCli } from '../../test/dlq-cli-fixture.js';

// `npm run dlq` as a child process (compiled, as the npm script runs it) against a database of this
// file's own.
const codec = new EventCodec();
const cli = useDlqCli();
const { dlq } = cli;

/** Adds dead letters failed `minutes` after T0; returns their ids, oldest first. */
const seed = (...minutes: number[]) =>
  addDeadLetters(
    cli.index,
    minutes.map((m) => deadLetter(codec, m, { originalPartition: 1 })),
  );

describe('npm run dlq', () => {
  it('list shows entries newest first, as lines or JSON', async () => {
    const ids = await seed(1, 2, 3);
    const text = await dlq('list', '--limit', '2');
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(`^\\s*${ids[2]}\\s+2026-11-20T10:03:00.000Z\\s+translation.requested.v1\\[1\\]@`),
    );
    expect(lines[0]).toContain('UNSUPPORTED_LANGUAGE: xx is not a language');
    expect(lines[2]).toBe('2 shown of 3 in the index');

    const json = JSON.parse((await dlq('list', '--json')).stdout) as {
      entries: { id: number; key: string; failedAt: string }[];
      total: number;
    };
    expect(json.total).toBe(3);
    expect(json.entries.map((e) => e.id)).toEqual([...ids].reverse());
    expect(json.entries[0]).toMatchObject({ key: expect.stringMatching(/^vendor:v-\d+:name:xx$/) });
  });

  it('show prints one entry with its payload decoded', async () => {
    const [id] = await seed(1);
    const { code, stdout } = await dlq('show', String(id));
    expect(code).toBe(0);
    expect(stdout).toContain(`id              ${id}`);
    expect(stdout).toContain('payload (decoded)');
    expect(stdout).toContain('"targetLang": "xx"');
  });

  it('replay --id puts the entry in the outbox for its original topic and key, and prints a summary', async () => {
    const ids = await seed(1, 2);
    const entry = await cli.index.get(ids[0]!);
    const { code, stdout, stderr } = await dlq('replay', '--id', String(ids[0]));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      `ids ${ids[0]}: replayed 1 of 1 selected\nthe outbox relay of a running worker publishes them\n`,
    );
    const [row] = await cli.orm.em.fork().find(OutboxMessage, {});
    expect(row).toMatchObject({ topic: entry!.originalTopic, messageKey: entry!.messageKey!.toString() });
    expect(Buffer.from(row!.payload).equals(entry!.payload)).toBe(true);
    expect(row!.headers[REPLAYED_FROM_HEADER]).toBe(String(ids[0]));
    expect((await cli.index.list({ limit: 10 })).map((e) => e.id)).toEqual([ids[1]]);
  });

  it('replay --all replays every entry; purge --from --to deletes a range', async () => {
    await seed(1, 2, 3, 4);
    const purged = await dlq('purge', '--from', '2026-11-20T10:02:00Z', '--to', '2026-11-20T10:04:00Z');
    expect(purged.stdout).toBe(
      'failed from 2026-11-20T10:02:00.000Z to 2026-11-20T10:04:00.000Z: purged 2 of 2 selected\n',
    );
    const replayed = await dlq('replay', '--all');
    expect(replayed.stdout).toMatch(/^all entries: replayed 2 of 2 selected\n/);
    expect(await cli.index.count()).toBe(0);
    expect(await cli.orm.em.fork().count(OutboxMessage, {})).toBe(2);
  });

  it('refuses an unknown id, and a missing or double selection, with exit code 1', async () => {
    const [id] = await seed(1);
    const unknown = await dlq('replay', '--id', String(id), '--id', String(id! + 1));
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain(`no dead letter with id ${id! + 1}`);
    expect(await cli.index.count()).toBe(1);

    const none = await dlq('purge');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('give exactly one of');
    const both = await dlq('purge', '--all', '--id', String(id));
    expect(both.code).toBe(1);
    expect(await cli.index.count()).toBe(1);

    const show = await dlq('show', String(id! + 1));
    expect(show.code).toBe(1);
    expect(show.stderr).toContain(`no dead letter with id ${id! + 1}`);
  });
});
