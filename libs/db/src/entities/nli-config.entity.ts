import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Singleton row (id = 1): the NLI moderation settings (spec: candidate labels, threshold, enabled). */
export const NliConfig = defineEntity({
  name: 'NliConfig',
  tableName: 'nli_config',
  properties: {
    id: p.integer().primary().autoincrement(false),
    candidateLabels: p.array(),
    safeLabels: p.array(),
    /** nli.violation_threshold: a violation needs a top score at least this high (default 0.5). */
    violationThreshold: p.double().default(0.5),
    hypothesisTemplate: p.string().length(200).default('This example is {}.'),
    enabled: p.boolean().default(true),
    revision: p.integer().default(1),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type NliConfig = InferEntity<typeof NliConfig>;
