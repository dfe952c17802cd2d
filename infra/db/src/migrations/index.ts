import type { MigrationObject } from '@mikro-orm/core';

import { Migration20261121000000_initial } from './Migration20261121000000_initial.js';
import { Migration20261121153039_moderation_terms } from './Migration20261121153039_moderation_terms.js';
import { Migration20261121165741_chat_usage } from './Migration20261121165741_chat_usage.js';
import { Migration20261121190000_dead_letters_unique } from './Migration20261121190000_dead_letters_unique.js';
import { Migration20261122120000_key_budgets } from './Migration20261122120000_key_budgets.js';
import { Migration20261122170700_api_key_modules } from './Migration20261122170700_api_key_modules.js';
import { Migration20261124180000_translation_requested_at } from './Migration20261124180000_translation_requested_at.js';
import { Migration20261124200000_glossaries } from './Migration20261124200000_glossaries.js';
import { Migration20261124210000_content_lifecycle } from './Migration20261124210000_content_lifecycle.js';
import { Migration20261124213000_human_translations } from './Migration20261124213000_human_translations.js';
import { Migration20261124233000_translation_fallback } from './Migration20261124233000_translation_fallback.js';
import { Migration20261125000000_content_history_indexes } from './Migration20261125000000_content_history_indexes.js';
import { Migration20261125130000_glossary_deletions } from './Migration20261125130000_glossary_deletions.js';
import { Migration20261129000000_default_zh_tw_target } from './Migration20261129000000_default_zh_tw_target.js';
import { Migration20261129100000_character_usage } from './Migration20261129100000_character_usage.js';
import { Migration20261129110000_source_formats } from './Migration20261129110000_source_formats.js';
import { Migration20261129120000_dead_letter_parts } from './Migration20261129120000_dead_letter_parts.js';
import { Migration20261129130000_translation_backfills } from './Migration20261129130000_translation_backfills.js';
import { Migration20261129140000_dead_letters_event_unique } from './Migration20261129140000_dead_letters_event_unique.js';
import { Migration20261129150000_backfill_sources_before } from './Migration20261129150000_backfill_sources_before.js';
import { Migration20261129230000_backfill_sources_before_required } from './Migration20261129230000_backfill_sources_before_required.js';

/** Every migration, oldest first. Add new ones here after `npm run migrate -- create`. */
export const MIGRATIONS: readonly MigrationObject[] = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
  {
    name: 'Migration20261121153039_moderation_terms',
    class: Migration20261121153039_moderation_terms,
  },
  { name: 'Migration20261121165741_chat_usage', class: Migration20261121165741_chat_usage },
  {
    name: 'Migration20261121190000_dead_letters_unique',
    class: Migration20261121190000_dead_letters_unique,
  },
  { name: 'Migration20261122120000_key_budgets', class: Migration20261122120000_key_budgets },
  { name: 'Migration20261122170700_api_key_modules', class: Migration20261122170700_api_key_modules },
  {
    name: 'Migration20261124180000_translation_requested_at',
    class: Migration20261124180000_translation_requested_at,
  },
  { name: 'Migration20261124200000_glossaries', class: Migration20261124200000_glossaries },
  { name: 'Migration20261124210000_content_lifecycle', class: Migration20261124210000_content_lifecycle },
  {
    name: 'Migration20261124213000_human_translations',
    class: Migration20261124213000_human_translations,
  },
  {
    name: 'Migration20261124233000_translation_fallback',
    class: Migration20261124233000_translation_fallback,
  },
  {
    name: 'Migration20261125000000_content_history_indexes',
    class: Migration20261125000000_content_history_indexes,
  },
  {
    name: 'Migration20261125130000_glossary_deletions',
    class: Migration20261125130000_glossary_deletions,
  },
  {
    name: 'Migration20261129000000_default_zh_tw_target',
    class: Migration20261129000000_default_zh_tw_target,
  },
  {
    name: 'Migration20261129100000_character_usage',
    class: Migration20261129100000_character_usage,
  },
  {
    name: 'Migration20261129110000_source_formats',
    class: Migration20261129110000_source_formats,
  },
  {
    name: 'Migration20261129120000_dead_letter_parts',
    class: Migration20261129120000_dead_letter_parts,
  },
  {
    name: 'Migration20261129130000_translation_backfills',
    class: Migration20261129130000_translation_backfills,
  },
  {
    name: 'Migration20261129140000_dead_letters_event_unique',
    class: Migration20261129140000_dead_letters_event_unique,
  },
  {
    name: 'Migration20261129150000_backfill_sources_before',
    class: Migration20261129150000_backfill_sources_before,
  },
  {
    name: 'Migration20261129230000_backfill_sources_before_required',
    class: Migration20261129230000_backfill_sources_before_required,
  },
];
