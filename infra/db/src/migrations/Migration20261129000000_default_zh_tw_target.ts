import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34: zh-TW joins the default target languages, since OpenCC converts the default source
 * language (zh-CN) into it on every install. Only a configuration still as the first migration
 * seeded it (`{en}`, never changed through the admin API) is changed; an operator's list is kept.
 * The revision stays 1: the row reads as the seed of a fresh install.
 */
export class Migration20261129000000_default_zh_tw_target extends Migration {
  override name = 'Migration20261129000000_default_zh_tw_target';

  override up(): void | Promise<void> {
    this.addSql(
      `update "translation_config" set "target_languages" = '{en,zh-TW}' where "id" = 1 and "revision" = 1 and "target_languages" = '{en}';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `update "translation_config" set "target_languages" = '{en}' where "id" = 1 and "revision" = 1 and "target_languages" = '{en,zh-TW}';`,
    );
  }
}
