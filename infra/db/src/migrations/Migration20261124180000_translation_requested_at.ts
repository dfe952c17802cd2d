import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #15: content_translations keeps when the request behind a row was made (TranslationCompleted
 * v3 `requestedAt`), so that of two results of the same source version, the later request's wins: a
 * late or replayed result cannot undo a retranslation. Existing rows count as requested at 0.
 */
export class Migration20261124180000_translation_requested_at extends Migration {
  override name = 'Migration20261124180000_translation_requested_at';

  override up(): void | Promise<void> {
    this.addSql(`alter table "content_translations" add column "requested_at" bigint not null default '0';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "content_translations" drop column "requested_at";`);
  }
}
