// npm run backfill -- start <language> [--module m] [--type t] [--detach]
// npm run backfill -- watch <id>
// npm run backfill -- list [--json]
// npm run backfill -- cancel <id>
// Talks to Postgres directly (DATABASE_URL); the running worker does the work (docs/operations.md,
// "Backfill"). `start` and `watch` show a progress bar with the rate and ETA on stderr (only on a
// terminal) until the backfill ends; Ctrl-C stops watching, not the backfill. Summaries go to stdout.
import { setTimeout as sleep } from 'node:timers/promises';

import type { Orm } from '@tp/db';
import {
  backfillView,
  endBackfills,
  findBackfill,
  latestBackfills,
  startBackfill,
  type Backfill,
  type BackfillView,
} from '@tp/pipeline';
import cliProgress from 'cli-progress';
import { Command } from 'commander';

import { withOrm } from '../shared/cli-database.js';

/** How often `watch` reads the backfill (the worker measures it about every second). */
const POLL_MS = 1000;

/** One line per backfill: id, language, filters, status and counts. */
export function backfillLine(b: BackfillView): string {
  const scope = [b.module && `module ${b.module}`, b.entity_type && `type ${b.entity_type}`].filter(Boolean);
  return (
    `${b.id} ${b.language}${scope.length ? ` (${scope.join(', ')})` : ''} ${b.status}: ` +
    `${b.done} done, ${b.failed} failed, ${b.remaining} remaining of ${b.total}, ${b.rate_per_s}/s`
  );
}

/** Follows a backfill until it ends, with a progress bar (done + failed of done + failed + remaining). */
async function watch(orm: Orm, id: string): Promise<BackfillView> {
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format:
        'backfill {language} [{bar}] {value}/{total} ({percentage}%) | {failed} failed | {rate}/s | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  let view = await read(orm, id);
  bar.start(view.done + view.failed + view.remaining, 0, payload(view));
  for (;;) {
    bar.setTotal(Math.max(1, view.done + view.failed + view.remaining));
    bar.update(view.done + view.failed, payload(view));
    if (view.status !== 'running') break;
    await sleep(POLL_MS);
    view = await read(orm, id);
  }
  bar.stop();
  return view;
}

const payload = (view: BackfillView) => ({
  language: view.language,
  failed: view.failed,
  rate: view.rate_per_s,
});

async function read(orm: Orm, id: string): Promise<BackfillView> {
  const found = await findBackfill(orm.em.fork(), id);
  if (!found) throw new Error(`no backfill has id ${id}`);
  return backfillView(found);
}

function report(view: BackfillView): void {
  process.stdout.write(`${backfillLine(view)}\n`);
  if (view.status !== 'done') process.exitCode = 1;
}

const program = new Command('backfill')
  .description('Translate the stored content that lacks a language (the translation_backfills table)')
  .showHelpAfterError();

program
  .command('start')
  .description('start a backfill of a configured target language and follow it until it ends')
  .argument('<language>', 'a configured target language, e.g. ca')
  .option('--module <module>', 'only the entities of this module')
  .option('--type <type>', 'only the entities of this type')
  .option('--detach', 'print the backfill and return; the worker runs it')
  .action(async (language: string, options: { module?: string; type?: string; detach?: boolean }) => {
    await withOrm(async (orm) => {
      const { backfill, created } = await orm.em
        .fork()
        .transactional((em) =>
          startBackfill(em, { language, module: options.module, entityType: options.type, origin: 'cli' }),
        );
      process.stderr.write(
        `${created ? 'started' : 'already running'}: ${backfillLine(backfillView(backfill))}\n`,
      );
      if (!options.detach) report(await watch(orm, backfill.id));
    });
  });

program
  .command('watch')
  .description('follow a backfill until it ends')
  .argument('<id>', 'the backfill id (from list)')
  .action(async (id: string) => withOrm(async (orm) => report(await watch(orm, id))));

program
  .command('list')
  .description('the running backfills, then the latest ended ones')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const rows: Backfill[] = await withOrm((orm) => latestBackfills(orm.em.fork(), 20));
    const views = rows.map((row) => backfillView(row));
    if (options.json) process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
    else for (const view of views) process.stdout.write(`${backfillLine(view)}\n`);
  });

program
  .command('cancel')
  .description('stop a running backfill (requests already written are still answered)')
  .argument('<id>', 'the backfill id (from list)')
  .action(async (id: string) => {
    const [cancelled] = await withOrm((orm) =>
      orm.em.fork().transactional((em) => endBackfills(em, 'cancelled', { id })),
    );
    if (!cancelled) throw new Error(`no running backfill has id ${id}`);
    process.stdout.write(`${backfillLine(backfillView(cancelled))}\n`);
  });

await program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`backfill: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
