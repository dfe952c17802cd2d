import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #19: glossaries, one admin-managed term list per language pair (the Glossary entity in
 * libs/db). The translator reads (source_lang, target_lang, version) often, so the pair is unique.
 */
export class Migration20261124200000_glossaries extends Migration {
  override name = 'Migration20261124200000_glossaries';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "glossaries" ("id" uuid not null, "name" varchar(200) not null, "source_lang" varchar(35) not null, "target_lang" varchar(35) not null, "entries" jsonb not null, "entry_count" int not null, "version" bigint not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "glossaries" add constraint "glossaries_pair_unique" unique ("source_lang", "target_lang");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "glossaries" cascade;`);
  }
}
