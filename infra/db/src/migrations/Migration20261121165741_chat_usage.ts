import { Migration } from '@mikro-orm/migrations';

/**
 * Tokens per chat completion and API key (issue #7). Generated from the ChatUsage entity in libs/db;
 * rows are only inserted. The two indexes serve the admin summary with and without a key filter.
 */
export class Migration20261121165741_chat_usage extends Migration {
  override name = 'Migration20261121165741_chat_usage';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "chat_usage" ("id" uuid not null, "api_key_id" uuid not null, "request_id" text not null, "model" varchar(200) not null, "upstream_model" varchar(200) not null, "provider" varchar(100) not null, "prompt_tokens" int not null, "completion_tokens" int not null, "total_tokens" int not null, "stream" boolean not null, "created_at" timestamptz not null default now(), primary key ("id"));`,
    );
    this.addSql(
      `create index "chat_usage_api_key_id_created_at_idx" on "chat_usage" ("api_key_id", "created_at");`,
    );
    this.addSql(`create index "chat_usage_created_at_idx" on "chat_usage" ("created_at");`);
    this.addSql(
      `alter table "chat_usage" add constraint "chat_usage_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "chat_usage" cascade;`);
  }
}
