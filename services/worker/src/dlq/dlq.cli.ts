// npm run dlq -- list [--limit n] [--before-id id] [--from iso] [--to iso] [--code c] [--topic t] [--group g] [--json]
// npm run dlq -- kinds [--json]
// npm run dlq -- show <id> [--json]
// npm run dlq -- replay (--id <id>... | --from <iso> --to <iso> | --all) [--code c] [--topic t] [--group g] [--dry-run]
// npm run dlq -- purge  (--id <id>... | --from <iso> --to <iso> | --all) [--code c] [--topic t] [--group g] [--dry-run]
// --code/--topic/--group alone select every entry of that kind; --dry-run prints the count it would take.
// Talks to Postgres directly (DATABASE_URL). Replays go through the outbox, so a running worker
// publishes them; summaries go to stdout, the progress bar to stderr (only on a terminal).
import { connectDatabase } from '@tp/db';
import {
  DeadLetterIndex,
  describeFilter,
  describeSelection,
  payloadView,
  type BulkProgress,
} from '@tp/pipeline';
import { env, parseEnv, redactUrl } from '@tp/runtime';
import { EventCodec } from '@tp/schemas';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';

import { entryJson, entryLine, kindsText, purgeSummary, replaySummary, showText } from './dlq-format.js';
import { filterFromOptions, selectionFromOptions, type SelectionOptions } from './dlq-selection.js';

interface ListOptions {
  readonly limit: number;
  readonly beforeId?: number;
  readonly from?: Date;
  readonly to?: Date;
  readonly code?: string;
  readonly topic?: string;
  readonly group?: string;
  readonly json?: boolean;
}

interface BulkOptions extends SelectionOptions {
  readonly dryRun?: boolean;
}

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

function isoDate(value: string): Date {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError('must be an ISO 8601 date-time');
  }
  return new Date(value);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function selectionCommand(name: 'replay' | 'purge', description: string): Command {
  return new Command(name)
    .description(description)
    .option('--id <id>', 'an entry id (repeat for more)', collect)
    .option('--from <iso>', 'entries that failed at or after this time (with --to)')
    .option('--to <iso>', 'entries that failed before this time (with --from)')
    .option('--all', 'every entry present when the command starts')
    .option('--code <code>', 'only entries with this error code (alone: every such entry)')
    .option('--topic <topic>', 'only entries from this original topic (alone: every such entry)')
    .option('--group <group>', 'only entries this consumer group gave up on (alone: every such entry)')
    .option('--dry-run', 'print how many entries would be taken, and take none');
}

/** Prints what a dry run would take; true when it was one. */
async function dryRun(verb: string, options: BulkOptions): Promise<boolean> {
  if (!options.dryRun) return false;
  const selection = selectionFromOptions(options);
  const count = await withIndex((index) => index.countSelected(selection));
  process.stdout.write(`${describeSelection(selection)}: would ${verb} ${count} (dry run)\n`);
  return true;
}

const program = new Command('dlq')
  .description('Inspect, replay and purge the dead-letter index (the dead_letters table)')
  .showHelpAfterError();

program
  .command('list')
  .description('list entries, newest first')
  .option('--limit <n>', 'entries to show (default 50)', positiveInt, 50)
  .option('--before-id <id>', 'entries older than this id (the next page)', positiveInt)
  .option('--from <iso>', 'only entries that failed at or after this time', isoDate)
  .option('--to <iso>', 'only entries that failed before this time', isoDate)
  .option('--code <code>', 'only entries with this error code')
  .option('--topic <topic>', 'only entries from this original topic')
  .option('--group <group>', 'only entries this consumer group gave up on')
  .option('--json', 'print JSON')
  .action(async (options: ListOptions) => {
    const filter = filterFromOptions(options);
    const matching = {
      ...(options.from ? { from: options.from } : {}),
      ...(options.to ? { to: options.to } : {}),
      ...(filter ? { filter } : {}),
    };
    const { entries, total, matched, kinds } = await withIndex(async (index) => ({
      entries: await index.list({
        limit: options.limit,
        ...(options.beforeId ? { beforeId: options.beforeId } : {}),
        ...matching,
      }),
      total: await index.count(),
      matched: await index.count(matching),
      kinds: await index.kinds(),
    }));
    if (options.json) {
      const json = { entries: entries.map((e) => entryJson(e)), total, matched, kinds };
      process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return;
    }
    for (const entry of entries) process.stdout.write(`${entryLine(entry)}\n`);
    const narrowed = [
      options.from && `failed from ${options.from.toISOString()}`,
      options.to && `failed before ${options.to.toISOString()}`,
      filter && describeFilter(filter),
    ].filter(Boolean);
    const of = narrowed.length
      ? `${matched} with ${narrowed.join(', ')}, ${total} in the index`
      : `${total} in the index`;
    process.stdout.write(`${entries.length} shown of ${of}\n`);
  });

program
  .command('kinds')
  .description('the kinds of failure in the index (error code, topic, group) with their counts')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const kinds = await withIndex((index) => index.kinds());
    process.stdout.write(options.json ? `${JSON.stringify(kinds, null, 2)}\n` : kindsText(kinds));
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
  ).action(async (options: BulkOptions) => {
    if (await dryRun('replay', options)) return;
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
  ).action(async (options: BulkOptions) => {
    if (await dryRun('purge', options)) return;
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
