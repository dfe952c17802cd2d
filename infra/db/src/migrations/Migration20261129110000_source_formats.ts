import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: a field is written as plain text, HTML or Markdown (ContentChanged v2, `formats` on
 * POST /api/v1/content). The source keeps its format, so every request of the field (the planner's,
 * the read path's, a retranslation's, a glossary's, a backfill's) translates it as written. Fields
 * stored before were plain text.
 */
export class Migration20261129110000_source_formats extends Migration {
  override name = 'Migration20261129110000_source_formats';

  override up(): void | Promise<void> {
    this.addSql(`alter table "source_contents" add column "format" varchar(8) not null default 'text';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "source_contents" drop column "format";`);
  }
}
