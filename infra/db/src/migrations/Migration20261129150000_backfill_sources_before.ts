import { Migration } from '@mikro-orm/migrations';

/**
 * `source_contents.planned_at`: when the planner last requested the field's translations (the start
 * of its transaction, which read the configured languages); `translation_backfills.sources_before`:
 * when the backfill was created, with the configuration row locked. A field planned later was
 * requested in that language by the planner, so the backfill leaves it alone instead of asking a
 * second time (docs/pipeline.md, "Backfill").
 */
export class Migration20261129150000_backfill_sources_before extends Migration {
  override name = 'Migration20261129150000_backfill_sources_before';

  override up(): void | Promise<void> {
    this.addSql(`alter table "source_contents" add column "planned_at" timestamptz null;`);
    this.addSql(`alter table "translation_backfills" add column "sources_before" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "translation_backfills" drop column "sources_before";`);
    this.addSql(`alter table "source_contents" drop column "planned_at";`);
  }
}
