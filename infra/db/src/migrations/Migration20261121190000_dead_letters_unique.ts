import { Migration } from '@mikro-orm/migrations';

/**
 * The dead-letter index (issue #5) keeps one entry per failed message and consumer group, so the
 * indexer can insert with ON CONFLICT DO NOTHING and a redelivered dead letter changes nothing.
 */
export class Migration20261121190000_dead_letters_unique extends Migration {
  override name = 'Migration20261121190000_dead_letters_unique';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "dead_letters" add constraint "dead_letters_origin_unique" unique ("consumer_group", "original_topic", "original_partition", "original_offset");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "dead_letters" drop constraint "dead_letters_origin_unique";`);
  }
}
