import { Migration } from '@mikro-orm/migrations';

/**
 * A translation request carries every field of an entity and language; its fields fail one by one,
 * each dead-lettered as a request of that field from the same original offset. The index keeps one
 * entry per part (the field, header tp-dead-letter-part), not one per offset, so no field's dead
 * letter is dropped as a duplicate of another's.
 */
export class Migration20261129120000_dead_letter_parts extends Migration {
  override name = 'Migration20261129120000_dead_letter_parts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "dead_letters" add column "original_part" varchar(200) not null default '';`);
    this.addSql(`alter table "dead_letters" drop constraint "dead_letters_origin_unique";`);
    this.addSql(
      `alter table "dead_letters" add constraint "dead_letters_origin_unique" unique ("consumer_group", "original_topic", "original_partition", "original_offset", "original_part");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "dead_letters" drop constraint "dead_letters_origin_unique";`);
    this.addSql(`delete from "dead_letters" where "original_part" <> '';`);
    this.addSql(`alter table "dead_letters" drop column "original_part";`);
    this.addSql(
      `alter table "dead_letters" add constraint "dead_letters_origin_unique" unique ("consumer_group", "original_topic", "original_partition", "original_offset");`,
    );
  }
}
