import type { Orm } from '@tp/db';
import type { Logger } from '@tp/runtime';

import { listEntries } from './matching/term-lists.js';
import { ModerateText, type NliDetect } from './moderate/moderate-text.js';
import { moderateRoute } from './moderate/moderate.routes.js';
import { ModerationTermStore } from './terms/moderation-term.store.js';
import { TermCatalogue } from './terms/term-catalogue.js';
import { termRoutes } from './terms/terms.routes.js';

/** Longest text one moderation request may carry, in characters (code points). */
export const MODERATION_MAX_TEXT_CHARS = 10_000;

export interface ModerationDeps {
  /** Postgres, for the custom terms (table moderation_terms). */
  readonly orm: Orm;
  /** The nli service's POST /detect; without it, `mode: "hybrid"` answers 503 NLI_UNAVAILABLE. */
  readonly nliDetect?: NliDetect | undefined;
  readonly logger?: Logger | undefined;
  /** Default MODERATION_MAX_TEXT_CHARS. */
  readonly maxTextChars?: number | undefined;
  /** Time allowed to one NLI call in hybrid mode; default 2000 ms. */
  readonly nliTimeoutMs?: number | undefined;
  /** How often each process checks for custom-term changes made elsewhere; default 1000 ms. */
  readonly refreshIntervalMs?: number | undefined;
}

/** POST /api/v1/moderate and the admin routes of custom terms. */
export function moderationRoutes(deps: ModerationDeps) {
  return createModeration(deps).routes;
}

/**
 * Keyword (and hybrid) moderation with its routes; `moderate` is also the chat guardrail's check.
 * The matcher is built in the background right away, so the first moderation call does not pay for it.
 */
export function createModeration(deps: ModerationDeps) {
  const store = new ModerationTermStore(deps.orm);
  const catalogue = new TermCatalogue(store, listEntries(), {
    refreshIntervalMs: deps.refreshIntervalMs,
    onError: (err) => deps.logger?.warn({ err }, 'cannot read the custom moderation terms'),
  });
  catalogue.current().catch(() => undefined);
  const moderate = new ModerateText(catalogue, {
    nliDetect: deps.nliDetect,
    nliTimeoutMs: deps.nliTimeoutMs ?? 2000,
  });
  return {
    moderate,
    routes: [
      moderateRoute(moderate, deps.maxTextChars ?? MODERATION_MAX_TEXT_CHARS),
      ...termRoutes(store, catalogue),
    ],
  };
}
