import { SLOTS } from '@tp/service-contracts';
import { z } from 'zod';

import type { TranslatorClient } from '../translate/translator-client.js';

const slotSchema = z.enum(SLOTS);
const breakerSchema = z.enum(['closed', 'open', 'half-open']);

export const enginesSchema = z
  .object({
    slots: z.array(
      z.object({
        slot: slotSchema,
        engine: z.string().nullable().meta({ description: 'null when the slot has no engine configured.' }),
        configured: z.boolean(),
        health: z.enum(['up', 'recovering', 'down', 'not_configured']).meta({
          description:
            'From the circuit breaker: closed = up, half-open = recovering (next call is a trial), open = down.',
        }),
        breaker: breakerSchema.nullable(),
        last_error: z.object({ reason: z.string(), at: z.iso.datetime() }).nullable(),
        successes: z.int().meta({ description: 'Calls since the translator started.' }),
        failures: z.int(),
      }),
    ),
    offline_models: z.array(
      z.object({
        name: z.string(),
        source: z.string(),
        target: z.string(),
        test_model: z
          .boolean()
          .meta({ description: 'A toy word list from tools/models, not a real translator.' }),
        loaded: z.boolean(),
        shadowed: z.boolean(),
      }),
    ),
    error: z
      .string()
      .optional()
      .meta({ description: 'Why the translator could not be asked (then empty lists).' }),
  })
  .meta({ description: "The translator's engine chain, slot by slot, in chain order." });

export type EngineStatus = z.input<typeof enginesSchema>;

const HEALTH = { closed: 'up', 'half-open': 'recovering', open: 'down' } as const;

/** Each slot of the translator's chain with its breaker; empty with the reason when it cannot be asked. */
export async function engineStatus(
  translator: TranslatorClient,
  requestId: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<EngineStatus> {
  try {
    const { engines, offlineModels } = await translator.engines(requestId, signal, timeoutMs);
    return {
      slots: engines.map((slot) => ({
        slot: slot.slot,
        engine: slot.engine ?? null,
        configured: slot.configured,
        health: slot.configured ? HEALTH[slot.breaker ?? 'closed'] : 'not_configured',
        breaker: slot.breaker ?? null,
        last_error: slot.lastError ?? null,
        successes: slot.successes,
        failures: slot.failures,
      })),
      offline_models: offlineModels.map((model) => ({
        name: model.name,
        source: model.source,
        target: model.target,
        test_model: model.testModel,
        loaded: model.loaded,
        shadowed: model.shadowed,
      })),
    };
  } catch (err) {
    if (signal.aborted) throw err;
    return { slots: [], offline_models: [], error: err instanceof Error ? err.message : String(err) };
  }
}
