import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #19: the worker prunes old tombstones (content_deletions) and tracked reports
 * (content_reports) in batches of the oldest rows; these indexes make each batch an index range
 * scan instead of a scan of the table.
 */
export class Migration20261125000000_content_history_indexes extends Migration {
  override name = 'Migration20261125000000_content_history_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "content_deletions_deleted_at_idx" on "content_deletions" ("deleted_at");`);
    this.addSql(`create index "content_reports_accepted_at_idx" on "content_reports" ("accepted_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "content_reports_accepted_at_idx";`);
    this.addSql(`drop index "content_deletions_deleted_at_idx";`);
  }
}
