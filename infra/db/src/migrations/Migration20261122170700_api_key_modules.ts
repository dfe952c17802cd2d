import { Migration } from '@mikro-orm/migrations';

/**
 * Module-scoped API keys (issue 16): the modules a key may report and read. Null is an unscoped key
 * (every module), as every key made before this column was; an empty list is never stored.
 */
export class Migration20261122170700_api_key_modules extends Migration {
  override name = 'Migration20261122170700_api_key_modules';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_keys" add column "modules" text[] null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_keys" drop column "modules";`);
  }
}
