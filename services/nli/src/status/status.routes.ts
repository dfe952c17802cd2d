import type { nliStatus } from '@tp/service-contracts';
import type { Express } from 'express';
import type { z } from 'zod';

import type { ResultCache } from '../classify/result-cache.js';
import type { NliConfigStore } from '../config/nli-config.store.js';
import type { ModelSlot } from '../model/index.js';

export interface StatusRoutesOptions {
  readonly slot: ModelSlot;
  readonly store: NliConfigStore;
  readonly cache: ResultCache;
}

/** GET /status: model readiness, the moderation settings in use, and cache counters (internal). */
export function statusRoutes(app: Express, { slot, store, cache }: StatusRoutesOptions): void {
  app.get('/status', async (_req, res) => {
    const state = slot.state;
    const config = await store.current();
    const model =
      state.status === 'ready'
        ? { model_ready: true, model_id: state.model.info.id, test_model: state.model.info.testModel }
        : {
            model_ready: false,
            model_id: state.modelId ?? null,
            test_model: state.testModel,
            model_error: state.reason,
          };
    const answer: z.input<typeof nliStatus> = {
      ...model,
      candidate_labels: [...config.candidateLabels],
      safe_labels: [...config.safeLabels],
      threshold: config.threshold,
      enabled: config.enabled,
      cache: cache.stats,
    };
    res.json(answer);
  });
}
