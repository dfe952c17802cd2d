import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #19 (no silent half-translations): content_translations says whether a machine row is a
 * weaker engine's result (`fallback`, TranslationCompleted v4): an engine earlier in the chain that
 * serves the pair failed. The read path requests such a row again, and a result that is not a
 * fallback replaces it. Existing rows were not flagged, so none is.
 */
export class Migration20261124233000_translation_fallback extends Migration {
  override name = 'Migration20261124233000_translation_fallback';

  override up(): void | Promise<void> {
    this.addSql(`alter table "content_translations" add column "fallback" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "content_translations" drop column "fallback";`);
  }
}
