// npm run dlq -- list [--limit n] [--before-id id] [--json]
// npm run dlq -- show <id> [--json]
// npm run dlq -- replay (--id <id>... | --from <iso> --to <iso> | --all)
// npm run dlq -- purge  (--id <id>... | --from <iso> --to <iso> | --all)
// Talks to Postgres directly (DATABASE_URL). Replays go through the outbox, so a running worker
// publishes them; summaries go to stdout, the progress bar to stderr (only on a terminal).
import { connectDatabase } from '@tp/db';
import { DeadLetterIndex, describeSelection, payloadView, type BulkProgress } from '@tp/pipeline';
import { env, parseEnv, redactUrl } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';

import { entryJson, entryLine, purgeSummary, replaySummary, showText } from './dlq-format.js';
import { selectionFromOptions, type SelectionOptions } from './dlq-selection.js';

const { DATABASE_URL: url } = parseEnv(
  z.object({
    DATABASE_URL: env.url(
      ['postgres', 'postgresql'],
      'postgres://postgres@127.0.0.1:5432/translation_platform',
    ),
  }),
);

async function withIndex<T>(work: (index: DeadLetterIndex) => Promise<T>): Promise<T> {
  const orm = await connectDatabase({ url, poolMax: 2 }).catch((err: Error) => {
    throw new Error(`cannot connect to ${redactUrl(url)}: ${err.message}`);
  });
  try {
    return await work(new DeadLetterIndex(orm));
  } finally {
    await orm.close(true);
  }
}

/** A progress bar on stderr; cli-progress writes nothing when stderr is not a terminal. */
function progressBar(verb: string): { update: (p: BulkProgress) => void; stop: () => void } {
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${verb} [{bar}] {value}/{total} ({percentage}%)`,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: ({ done, total }) => {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

function positiveInt(value: string): number {
  if (!/^[1-9]\d{0,14}$/.test(value)) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function selectionCommand(name: 'replay' | 'purge', description: string): Command {
  return new Command(name)
    .description(description)
    .option('--id <id>', 'an entry id (repeat for more)', collect)
    .option('--from <iso>', 'entries that failed at or after this time (with --to)')
    .option('--to <iso>', 'entries that failed before this time (with --from)')
    .option('--all', 'every entry present when the command starts');
}

const program = new Command('dlq')
  .description('Inspect, replay and purge the dead-letter index (table dead_letters)')
  .showHelpAfterError();

program
  .command('list')
  .description('list entries, newest first')
  .option('--limit <n>', 'entries to show (default 50)', positiveInt, 50)
  .option('--before-id <id>', 'entries older than this id (the next page)', positiveInt)
  .option('--json', 'print JSON')
  .action(async (options: { limit: number; beforeId?: number; json?: boolean }) => {
    const { entries, total } = await withIndex(async (index) => ({
      entries: await index.list({
        limit: options.limit,
        ...(options.beforeId ? { beforeId: options.beforeId } : {}),
      }),
      total: await index.count(),
    }));
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ entries: entries.map((e) => entryJson(e)), total }, null, 2)}\n`,
      );
      return;
    }
    for (const entry of entries) process.stdout.write(`${entryLine(entry)}\n`);
    process.stdout.write(`${entries.length} shown of ${total} in the index\n`);
  });

program
  .command('show')
  .description('show one entry with its headers and payload (decoded when possible)')
  .argument('<id>', 'entry id (from list)', positiveInt)
  .option('--json', 'print JSON')
  .action(async (id: number, options: { json?: boolean }) => {
    const entry = await withIndex((index) => index.get(id));
    if (!entry) throw new Error(`no dead letter with id ${id}`);
    const payload = payloadView(new EventCodec(), entry.payload, entry.headers);
    if (options.json) {
      process.stdout.write(`${JSON.stringify(entryJson(entry, payload), null, 2)}\n`);
    } else {
      process.stdout.write(showText(entry, payload));
    }
  });

program.addCommand(
  selectionCommand(
    'replay',
    'put entries back on their original topics (original key, bytes and headers) through the outbox',
  ).action(async (options: SelectionOptions) => {
    const selection = selectionFromOptions(options);
    const bar = progressBar('replaying');
    const outcome = await withIndex((index) => index.replay(selection, bar.update)).finally(bar.stop);
    process.stdout.write(`${describeSelection(selection)}: ${replaySummary(outcome)}`);
  }),
);

program.addCommand(
  selectionCommand(
    'purge',
    'delete entries from the index (the topic keeps them until its retention)',
  ).action(async (options: SelectionOptions) => {
    const selection = selectionFromOptions(options);
    const bar = progressBar('purging');
    const outcome = await withIndex((index) => index.purge(selection, bar.update)).finally(bar.stop);
    process.stdout.write(`${describeSelection(selection)}: ${purgeSummary(outcome)}`);
  }),
);

try {
  await program.parseAsync();
} catch (err) {
  process.stderr.write(`dlq: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
