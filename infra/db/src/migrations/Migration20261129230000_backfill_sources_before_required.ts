import { Migration } from '@mikro-orm/migrations';

/**
 * `translation_backfills.sources_before` on every row: a backfill created before the column existed
 * takes its creation time, rounded up to a whole millisecond as a new one's (insertBackfill), so the
 * runner never has to fill it in.
 */
export class Migration20261129230000_backfill_sources_before_required extends Migration {
  override name = 'Migration20261129230000_backfill_sources_before_required';

  override up(): void | Promise<void> {
    this.addSql(
      `update "translation_backfills" set "sources_before" = date_trunc('milliseconds', "created_at") + interval '1 millisecond' where "sources_before" is null;`,
    );
    this.addSql(`alter table "translation_backfills" alter column "sources_before" set not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "translation_backfills" alter column "sources_before" drop not null;`);
  }
}
