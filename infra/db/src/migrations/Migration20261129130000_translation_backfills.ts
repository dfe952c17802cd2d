import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 36: a backfill translates every stored field that lacks a target language (the language was
 * added to the configuration, or an operator asked). Its job is a row: the scope (language, module and
 * entity type filters), a cursor over (entity_type, entity_id) advanced in the transaction that writes
 * the requests to the outbox, and its counts, so a restart continues where it stopped.
 */
export class Migration20261129130000_translation_backfills extends Migration {
  override name = 'Migration20261129130000_translation_backfills';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "translation_backfills" ("id" uuid not null, "language" varchar(20) not null, "module" varchar(100) null, "entity_type" varchar(100) null, "origin" text not null, "status" text not null default 'running', "cursor_type" varchar(100) not null default '', "cursor_id" varchar(200) not null default '', "total" int not null default 0, "requested" int not null default 0, "done" int not null default 0, "failed" int not null default 0, "remaining" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, "emitted_at" timestamptz null, "finished_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "translation_backfills" add constraint "translation_backfills_origin_check" check ("origin" in ('config', 'operator', 'cli'));`,
    );
    this.addSql(
      `alter table "translation_backfills" add constraint "translation_backfills_status_check" check ("status" in ('running', 'done', 'cancelled', 'stopped'));`,
    );
    this.addSql(
      `create index "translation_backfills_running_idx" on "translation_backfills" ("created_at") where "status" = 'running';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "translation_backfills" cascade;`);
  }
}
