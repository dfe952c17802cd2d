// npm run content:invalid -- list [--json]
// npm run content:invalid -- purge [--dry-run]
// Content stored under names the content rules refuse (docs/pipeline.md, "Content the API could not
// serve"): list names each entity and the rules it breaks; purge removes its sources, translations,
// tombstone and tracked reports, after which the business system reports it again under valid
// names. Talks to Postgres directly (DATABASE_URL); a running worker may keep running.
import { Command } from 'commander';

import { findInvalidContent, purgeInvalidContent, type InvalidEntity } from './invalid-content.js';
import { withOrm } from '../shared/cli-database.js';

const line = (e: InvalidEntity) =>
  `${e.module ?? '-'} ${JSON.stringify(e.entityType)} ${JSON.stringify(e.entityId)}: ${e.broken}\n`;

const program = new Command('content:invalid')
  .description('List or purge content stored under names the content rules refuse')
  .showHelpAfterError();

program
  .command('list')
  .description('name each entity stored under refused names, and the rules it breaks')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const invalid = await withOrm(findInvalidContent);
    if (options.json) process.stdout.write(`${JSON.stringify(invalid)}\n`);
    else process.stdout.write(invalid.map(line).join('') + `${invalid.length} entities with refused names\n`);
  });

program
  .command('purge')
  .description('remove everything stored under those entities (sources, translations, tombstones, reports)')
  .option('--dry-run', 'print how many entities would be removed, and remove none')
  .action(async (options: { dryRun?: boolean }) => {
    await withOrm(async (orm) => {
      const invalid = await findInvalidContent(orm);
      if (options.dryRun) {
        process.stdout.write(`would purge ${invalid.length} entities (dry run)\n`);
        return;
      }
      const purged = await purgeInvalidContent(orm, invalid);
      process.stdout.write(
        `purged ${invalid.length} entities: ${purged.sources} sources, ${purged.translations} translations, ` +
          `${purged.tombstones} tombstones, ${purged.reports} reports\n`,
      );
    });
  });

await program.parseAsync().catch((err: Error) => {
  console.error(err.message);
  process.exitCode = 1;
});
