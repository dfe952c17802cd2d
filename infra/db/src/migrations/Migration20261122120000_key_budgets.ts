import { Migration } from '@mikro-orm/migrations';

/**
 * Per-key budgets (issue #16): admin-set limits on api_keys (null = none) and what each key spent per
 * UTC day and calendar month. Generated from the ApiKey and KeyBudgetUsage entities in libs/db.
 */
export class Migration20261122120000_key_budgets extends Migration {
  override name = 'Migration20261122120000_key_budgets';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "api_keys" add "requests_per_day" int null, add "tokens_per_day" bigint null, add "tokens_per_month" bigint null;`,
    );
    this.addSql(
      `create table "key_budget_usage" ("api_key_id" uuid not null, "period" text not null, "starts_on" date not null, "requests" int not null default 0, "tokens" bigint not null default '0', primary key ("api_key_id", "period", "starts_on"));`,
    );
    this.addSql(
      `alter table "key_budget_usage" add constraint "key_budget_usage_api_key_id_foreign" foreign key ("api_key_id") references "api_keys" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "key_budget_usage" add constraint "key_budget_usage_period_check" check ("period" in ('day', 'month'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "key_budget_usage" cascade;`);
    this.addSql(
      `alter table "api_keys" drop column "requests_per_day", drop column "tokens_per_day", drop column "tokens_per_month";`,
    );
  }
}
