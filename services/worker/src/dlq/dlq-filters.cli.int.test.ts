import { describe, expect, it } from '@jest/globals';
import { OutboxMessage } from '@tp/db';
import { EventCodec } from '@tp/schemas';

import { addDeadLetters, deadLetter } from '@tp/test/harness/dead-letters';
import { useDlqCli } from '../../test/dlq-cli-fixture.js';

// `npm run dlq` triage by kind of failure (--code, --topic, --group, --dry-run) as a child process,
// against a database of this file's own.

const codec = new EventCodec();
const cli = useDlqCli();
const { dlq } = cli;

const engineFailure = (minutes: number) =>
  deadLetter(codec, minutes, { errorCode: 'TRANSLATION_FAILED', errorMessage: 'every engine failed' });
const poison = (minutes: number) =>
  deadLetter(codec, minutes, {
    originalTopic: 'content.changed.v1',
    consumerGroup: 'worker.content',
    errorCode: 'MESSAGE_UNDECODABLE',
    payload: Buffer.from([1, 2, 3]),
    headers: {},
  });

const codes = async () => (await cli.index.list({ limit: 100 })).map((e) => e.errorCode).sort();

describe('npm run dlq by kind of failure', () => {
  it('list --code shows that kind only and the count it matched; kinds counts each kind', async () => {
    await addDeadLetters(cli.index, [engineFailure(1), poison(2), engineFailure(3)]);
    const out = await dlq('list', '--code', 'TRANSLATION_FAILED');
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines.filter((l) => l.includes('TRANSLATION_FAILED: every engine failed'))).toHaveLength(2);
    expect(out.stdout).not.toContain('MESSAGE_UNDECODABLE:');
    expect(out.stdout).toContain('2 shown of 2 with code TRANSLATION_FAILED, 3 in the index');
    const ranged = await dlq('list', '--from', '2026-11-20T10:02:00Z', '--group', 'translator.engines');
    expect(ranged.stdout).toContain(
      '1 shown of 1 with failed from 2026-11-20T10:02:00.000Z, group translator.engines, 3 in the index',
    );
    const kinds = await dlq('kinds');
    expect(kinds.stdout.split('\n').slice(1, 3)).toEqual([
      '     2  TRANSLATION_FAILED  translation.requested.v1  translator.engines',
      '     1  MESSAGE_UNDECODABLE  content.changed.v1  worker.content',
    ]);
  });

  it('replay --dry-run counts one kind and takes nothing; the real run takes that count, the poison stays', async () => {
    await addDeadLetters(cli.index, [engineFailure(1), poison(2), engineFailure(3), poison(4)]);
    const kind = ['--code', 'TRANSLATION_FAILED', '--topic', 'translation.requested.v1'];
    const dry = await dlq('replay', ...kind, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      'all entries with code TRANSLATION_FAILED, topic translation.requested.v1: would replay 2 (dry run)\n',
    );
    expect(await cli.index.count()).toBe(4);
    const real = await dlq('replay', ...kind);
    expect(real.stdout).toContain('replayed 2 of 2 selected');
    expect(await codes()).toEqual(['MESSAGE_UNDECODABLE', 'MESSAGE_UNDECODABLE']);
    expect(await cli.orm.em.fork().count(OutboxMessage, {})).toBe(2);
  });

  it('purge --group --dry-run counts, purge --group deletes that group only', async () => {
    await addDeadLetters(cli.index, [engineFailure(1), poison(2), poison(3)]);
    const dry = await dlq('purge', '--group', 'worker.content', '--dry-run');
    expect(dry.stdout).toContain('would purge 2 (dry run)');
    expect(await cli.index.count()).toBe(3);
    const real = await dlq('purge', '--group', 'worker.content');
    expect(real.stdout).toContain('purged 2 of 2 selected');
    expect(await codes()).toEqual(['TRANSLATION_FAILED']);
  });

  it('refuses --id with --code, naming the rule', async () => {
    const [id] = await addDeadLetters(cli.index, [poison(1)]);
    const out = await dlq('replay', '--id', String(id), '--code', 'MESSAGE_UNDECODABLE');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('--id does not combine with --code, --topic or --group');
    expect(await cli.index.count()).toBe(1);
  });
});
