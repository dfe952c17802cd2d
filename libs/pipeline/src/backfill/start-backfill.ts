import { randomUUID } from 'node:crypto';

import type { BackfillOrigin } from '@tp/db';
import { AppError } from '@tp/runtime';
import { normaliseLanguageTag } from '@tp/translation';

import { countLackingFields, scopeHasContent } from '../content-store/backfill-fields.js';
import {
  insertBackfill,
  lockBackfillCreation,
  runningBackfillOf,
  type Backfill,
  type BackfillScope,
} from '../content-store/backfills.js';
import { readTranslationSettings } from '../content-store/translation-config.js';
import type { Em } from '../content-store/em.js';

/** What an operator asks for: a language, and optionally a module and an entity type. */
export interface BackfillRequest {
  readonly language: string;
  readonly module?: string | undefined;
  readonly entityType?: string | undefined;
  readonly origin: BackfillOrigin;
}

export interface StartedBackfill {
  readonly backfill: Backfill;
  /** false: a backfill of the same scope was already running, and is the one answered. */
  readonly created: boolean;
}

/**
 * Starts the backfill an operator asks for, in the caller's transaction: the language must be a
 * supported code (UNSUPPORTED_LANGUAGE) and a configured target (LANGUAGE_NOT_CONFIGURED); a module or
 * type filter must match stored content (ENTITY_NOT_FOUND). One backfill per scope runs at a time:
 * asking again answers the running one.
 */
export async function startBackfill(em: Em, request: BackfillRequest): Promise<StartedBackfill> {
  const language = normaliseLanguageTag(request.language);
  if (!language) {
    throw new AppError(
      'UNSUPPORTED_LANGUAGE',
      `unsupported language ${JSON.stringify(request.language)} (see GET /api/v1/translate/languages)`,
      { language: request.language },
    );
  }
  const settings = await readTranslationSettings(em);
  if (!configuredTargets(settings.targetLanguages).includes(language)) {
    throw new AppError(
      'LANGUAGE_NOT_CONFIGURED',
      `${language} is not a configured target language (${settings.targetLanguages.join(', ')})`,
      { language, target_languages: settings.targetLanguages },
    );
  }
  const scope = { language, module: request.module ?? null, entityType: request.entityType ?? null };
  if ((scope.module !== null || scope.entityType !== null) && !(await scopeHasContent(em, scope))) {
    throw new AppError('ENTITY_NOT_FOUND', `no source content is stored under ${describeScope(scope)}`, {
      module: scope.module,
      type: scope.entityType,
    });
  }
  return createBackfill(em, scope, request.origin);
}

/** The backfills of languages just added to the configuration, in the transaction that adds them. */
export async function startConfigBackfills(em: Em, languages: readonly string[]): Promise<Backfill[]> {
  const started: Backfill[] = [];
  for (const language of languages) {
    const scope = { language, module: null, entityType: null };
    started.push((await createBackfill(em, scope, 'config')).backfill);
  }
  return started;
}

async function createBackfill(
  em: Em,
  scope: BackfillScope,
  origin: BackfillOrigin,
): Promise<StartedBackfill> {
  await lockBackfillCreation(em);
  const running = await runningBackfillOf(em, scope);
  if (running) return { backfill: running, created: false };
  const { lacking } = await countLackingFields(
    em,
    { ...scope, sourcesBefore: null },
    { entityType: '', entityId: '' },
  );
  const backfill = await insertBackfill(em, { ...scope, id: randomUUID(), origin, total: lacking });
  return { backfill, created: true };
}

/** The configured target tags as language codes (the planner reads them the same way). */
export function configuredTargets(tags: readonly string[]): string[] {
  return tags.map((tag) => normaliseLanguageTag(tag)).filter((code): code is string => !!code);
}

const describeScope = (scope: BackfillScope): string =>
  [
    scope.module !== null && `module ${JSON.stringify(scope.module)}`,
    scope.entityType !== null && `entity type ${JSON.stringify(scope.entityType)}`,
  ]
    .filter(Boolean)
    .join(' and ');
