import { Migration } from '@mikro-orm/migrations';

/**
 * Issue #19 (human edits win, no silent half-translations): content_translations says who wrote a
 * row (`origin` machine or human, and for a human one the API key that wrote it) and whether a human
 * translation was made from an older source text (`stale`); translation_config lists the languages
 * whose human translations are never replaced by a machine one (`human_only_languages`). Existing
 * rows are machine translations, none stale; no language is human-only.
 */
export class Migration20261124213000_human_translations extends Migration {
  override name = 'Migration20261124213000_human_translations';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "content_translations" add column "origin" varchar(10) not null default 'machine', ` +
        `add column "written_by" uuid null, add column "stale" boolean not null default false;`,
    );
    this.addSql(
      `alter table "translation_config" add column "human_only_languages" text[] not null default '{}';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "translation_config" drop column "human_only_languages";`);
    this.addSql(
      `alter table "content_translations" drop column "origin", drop column "written_by", drop column "stale";`,
    );
  }
}
