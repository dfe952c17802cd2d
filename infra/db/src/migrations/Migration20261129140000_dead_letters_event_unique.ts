import { Migration } from '@mikro-orm/migrations';

/**
 * A message can be delivered twice at two offsets (the outbox relay publishes at least once: a send
 * that timed out after the broker stored it is sent again). The index keeps one entry per event, part
 * and consumer group as well, so a duplicate delivery that fails the same way is not listed, counted or
 * replayed twice. Entries without an event id (a poison message without headers) are kept by offset
 * alone: NULLs never conflict.
 */
export class Migration20261129140000_dead_letters_event_unique extends Migration {
  override name = 'Migration20261129140000_dead_letters_event_unique';

  override up(): void | Promise<void> {
    this.addSql(
      `delete from "dead_letters" d using "dead_letters" e
       where d."event_id" = e."event_id" and d."consumer_group" = e."consumer_group"
         and d."original_topic" = e."original_topic" and d."original_part" = e."original_part" and d."id" > e."id";`,
    );
    this.addSql(
      `alter table "dead_letters" add constraint "dead_letters_event_unique" unique ("consumer_group", "original_topic", "event_id", "original_part");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "dead_letters" drop constraint "dead_letters_event_unique";`);
  }
}
