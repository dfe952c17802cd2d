import { Migration } from '@mikro-orm/migrations';

/**
 * Custom keyword-moderation terms and allowed phrases (issue #6). Generated from the ModerationTerm
 * entity in libs/db; rows are only inserted and deleted, never updated.
 */
export class Migration20261121153039_moderation_terms extends Migration {
  override name = 'Migration20261121153039_moderation_terms';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "moderation_terms" ("id" uuid not null, "term" varchar(200) not null, "normalised" text not null, "kind" text not null, "language" varchar(35) null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "moderation_terms" add constraint "moderation_terms_kind_normalised_unique" unique ("kind", "normalised");`,
    );
    this.addSql(
      `alter table "moderation_terms" add constraint "moderation_terms_kind_check" check ("kind" in ('block', 'allow'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "moderation_terms" cascade;`);
  }
}
