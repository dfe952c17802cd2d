import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #19: deletions leave a tombstone with the version they were made at (content_deletions), and
 * each report of a business system is tracked from the gateway to its translations (content_reports).
 */
export class Migration20261124210000_content_lifecycle extends Migration {
  override name = 'Migration20261124210000_content_lifecycle';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "content_deletions" ("entity_type" varchar(100) not null, "entity_id" varchar(200) not null, "module" varchar(100) not null, "deleted_version" bigint not null, "deleted_at" timestamptz not null, primary key ("entity_type", "entity_id"));`,
    );
    this.addSql(
      `create table "content_reports" ("tracking_id" uuid not null, "api_key_id" uuid not null, "kind" text not null, "module" varchar(100) not null, "entity_type" varchar(100) not null, "entity_id" varchar(200) not null, "source_version" bigint null, "accepted_at" timestamptz not null, "planned_at" timestamptz null, "planned_fields" text[] not null default '{}', "planned_languages" text[] not null default '{}', "requests" int not null default 0, "refused_code" varchar(100) null, "dead_letter_codes" text[] not null default '{}', primary key ("tracking_id"));`,
    );
    this.addSql(
      `alter table "content_reports" add constraint "content_reports_kind_check" check ("kind" in ('change', 'delete'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "content_reports" cascade;`);
    this.addSql(`drop table if exists "content_deletions" cascade;`);
  }
}
