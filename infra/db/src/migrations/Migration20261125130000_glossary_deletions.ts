import { Migration } from '@mikro-orm/migrations';

/**
 * Glossaries deleted through the admin API whose copies at DeepL are still to be deleted (the
 * GlossaryDeletion entity in libs/db); the translator takes the oldest first.
 */
export class Migration20261125130000_glossary_deletions extends Migration {
  override name = 'Migration20261125130000_glossary_deletions';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "glossary_deletions" ("glossary_id" uuid not null, "deleted_at" timestamptz not null, primary key ("glossary_id"));`,
    );
    this.addSql(`create index "glossary_deletions_deleted_at_idx" on "glossary_deletions" ("deleted_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "glossary_deletions" cascade;`);
  }
}
