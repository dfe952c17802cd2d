import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: characters translated per key, UTC day and calendar month (engine work and hot-cache hits
 * apart), beside the other budgets in key_budget_usage, and an optional monthly character budget on
 * api_keys (null = none).
 */
export class Migration20261129100000_character_usage extends Migration {
  override name = 'Migration20261129100000_character_usage';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_keys" add "characters_per_month" bigint null;`);
    this.addSql(
      `alter table "key_budget_usage" add "characters" bigint not null default '0', add "cached_characters" bigint not null default '0';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "key_budget_usage" drop column "characters", drop column "cached_characters";`);
    this.addSql(`alter table "api_keys" drop column "characters_per_month";`);
  }
}
