import { Migration } from '@mikro-orm/migrations';

/**
 * Every table of ARCHITECTURE.md. Generated from the entities in libs/db (a test checks that applying
 * all migrations leaves no difference to the entities), then given defaults for the two config rows.
 */
export class Migration20261121000000_initial extends Migration {
  override name = 'Migration20261121000000_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "api_keys" ("id" uuid not null, "name" varchar(100) not null, "role" text not null, "key_hash" varchar(64) not null, "key_prefix" varchar(16) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_role_check" check ("role" in ('client', 'admin'));`,
    );

    this.addSql(
      `create table "content_translations" ("id" bigserial primary key, "entity_type" varchar(100) not null, "entity_id" varchar(200) not null, "field" varchar(100) not null, "target_lang" varchar(20) not null, "source_lang" varchar(20) not null, "translated_text" text not null, "source_hash" varchar(64) not null, "source_version" bigint not null, "engine" varchar(50) not null, "truncated" boolean not null default false, "last_event_id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "content_translations" add constraint "content_translations_entity_field_lang_unique" unique ("entity_type", "entity_id", "field", "target_lang");`,
    );

    this.addSql(
      `create table "dead_letters" ("id" bigserial primary key, "event_id" varchar(100) null, "original_topic" varchar(200) not null, "original_partition" int not null, "original_offset" bigint not null, "message_key" bytea null, "payload" bytea not null, "headers" jsonb not null, "consumer_group" varchar(200) not null, "error_code" varchar(100) not null, "error_message" text not null, "attempts" int not null, "failed_at" timestamptz not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "dead_letters_failed_at_idx" on "dead_letters" ("failed_at");`);

    this.addSql(
      `create table "nli_config" ("id" int not null, "candidate_labels" text[] not null, "safe_labels" text[] not null, "violation_threshold" double precision not null default 0.5, "hypothesis_template" varchar(200) not null default 'This example is {}.', "enabled" boolean not null default true, "revision" int not null default 1, "updated_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "outbox" ("id" bigserial primary key, "event_id" uuid not null, "event_type" varchar(100) not null, "topic" varchar(200) not null, "message_key" varchar(500) null, "payload" bytea not null, "headers" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, "attempts" int not null default 0, "last_error" text null);`,
    );
    this.addSql(`alter table "outbox" add constraint "outbox_event_id_unique" unique ("event_id");`);
    this.addSql(`create index "outbox_unpublished_idx" on "outbox" ("id") where "published_at" is null;`);

    this.addSql(
      `create table "source_contents" ("id" bigserial primary key, "module" varchar(100) not null, "entity_type" varchar(100) not null, "entity_id" varchar(200) not null, "field" varchar(100) not null, "source_lang" varchar(20) not null, "text" text not null, "source_hash" varchar(64) not null, "source_version" bigint not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "source_contents" add constraint "source_contents_entity_field_unique" unique ("entity_type", "entity_id", "field");`,
    );

    this.addSql(
      `create table "translation_config" ("id" int not null, "target_languages" text[] not null, "enabled" boolean not null default true, "revision" int not null default 1, "updated_at" timestamptz not null, primary key ("id"));`,
    );

    // The two configuration singletons start with safe defaults; admins change them through the API.
    this.addSql(
      `insert into "translation_config" ("id", "target_languages", "enabled", "revision", "updated_at") values (1, '{en}', true, 1, now());`,
    );
    this.addSql(
      `insert into "nli_config" ("id", "candidate_labels", "safe_labels", "violation_threshold", "hypothesis_template", "enabled", "revision", "updated_at") values (1, '{violence,hate speech,sexual content,harassment,self-harm,safe content}', '{safe content}', 0.5, 'This example is {}.', true, 1, now());`,
    );
  }

  override down(): void | Promise<void> {
    for (const table of [
      'translation_config',
      'source_contents',
      'outbox',
      'nli_config',
      'dead_letters',
      'content_translations',
      'api_keys',
    ]) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
  }
}
