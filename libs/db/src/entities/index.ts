import { ApiKey } from './api-key.entity.js';
import { ChatUsage } from './chat-usage.entity.js';
import { ContentDeletion } from './content-deletion.entity.js';
import { ContentReport } from './content-report.entity.js';
import { ContentTranslation } from './content-translation.entity.js';
import { DeadLetterEntry } from './dead-letter-entry.entity.js';
import { Glossary } from './glossary.entity.js';
import { GlossaryDeletion } from './glossary-deletion.entity.js';
import { KeyBudgetUsage } from './key-budget-usage.entity.js';
import { ModerationTerm } from './moderation-term.entity.js';
import { NliConfig } from './nli-config.entity.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { SourceContent } from './source-content.entity.js';
import { TranslationBackfill } from './translation-backfill.entity.js';
import { TranslationConfig } from './translation-config.entity.js';

export * from './api-key.entity.js';
export * from './chat-usage.entity.js';
export * from './content-deletion.entity.js';
export * from './content-report.entity.js';
export * from './content-translation.entity.js';
export * from './dead-letter-entry.entity.js';
export * from './glossary.entity.js';
export * from './glossary-deletion.entity.js';
export * from './key-budget-usage.entity.js';
export * from './moderation-term.entity.js';
export * from './nli-config.entity.js';
export * from './outbox-message.entity.js';
export * from './source-content.entity.js';
export * from './translation-backfill.entity.js';
export * from './translation-config.entity.js';

export const ENTITIES = [
  ApiKey,
  ChatUsage,
  ContentDeletion,
  ContentReport,
  ContentTranslation,
  DeadLetterEntry,
  Glossary,
  GlossaryDeletion,
  KeyBudgetUsage,
  ModerationTerm,
  NliConfig,
  OutboxMessage,
  SourceContent,
  TranslationBackfill,
  TranslationConfig,
] as const;
