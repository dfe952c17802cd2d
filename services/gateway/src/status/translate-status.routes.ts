import type { Orm } from '@tp/db';
import { fetchReadiness, type Dependencies } from '@tp/platform';
import { checkReadiness, requestId, type DependencyCheck } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';
import type { TranslatorClient } from '../translate/translator-client.js';
import { backfillSummary, backfillsSchema } from './backfill-summary.js';
import { queueLength, queueSchema } from './queue-length.js';
import { deadLetterSummary, deadLettersSchema } from './dead-letter-summary.js';
import { engineStatus, enginesSchema } from './engine-status.js';

/** Time allowed to each probe of the status page (a process, the engines, Kafka), in ms. */
const PROBE_TIMEOUT_MS = 2000;
/** Dead letters listed on the status page; the dead-letter endpoints list them all. */
const LATEST_DEAD_LETTERS = 5;
/** Backfills listed on the status page: the running ones first, then the latest ended. */
const LATEST_BACKFILLS = 10;

const dependencySchema = z.object({
  status: z.enum(['up', 'degraded', 'down']).meta({
    description:
      'up: answers fully; degraded: answers but works with less (`reason`); down: does not answer (`error`). A process of ours is shown as its own /ready reports it.',
  }),
  required: z.boolean(),
  latency_ms: z.number(),
  error: z.string().optional(),
  reason: z.string().optional(),
});

const processSchema = z.object({
  online: z.boolean().meta({ description: 'The process answered /ready (even if not ready).' }),
  status: z.enum(['ready', 'not_ready', 'offline']),
  dependencies: z.record(z.string(), dependencySchema),
  error: z.string().optional(),
});

export const translateStatusSchema = z
  .object({
    translator: processSchema.meta({ description: 'online/offline of the translation backend.' }),
    processes: z.record(z.string(), processSchema),
    engines: enginesSchema,
    queue: queueSchema,
    dead_letters: deadLettersSchema,
    backfills: backfillsSchema,
    checked_at: z.iso.datetime(),
  })
  .meta({ id: 'TranslateStatus' });

export interface ProcessProbe {
  readonly name: string;
  readonly baseUrl: string;
}

export interface TranslateStatusOptions {
  /** The gateway's own dependency checks. */
  readonly checks: readonly DependencyCheck[];
  /** Processes whose /ready is probed; `translator` is the one shown as the translation backend. */
  readonly probes: readonly ProcessProbe[];
  readonly translator: TranslatorClient;
  readonly kafka: Dependencies['kafka'];
  readonly orm: Orm;
  readonly topicPrefix: string;
}

type ProcessStatus = z.infer<typeof processSchema>;

/**
 * GET /api/admin/translate/status: health of the gateway and of every process it can reach, the
 * translator's engines, the queue length, the dead letters and the backfills. Every part is probed in parallel and
 * reports its own failure, so the page answers 200 whatever is down.
 */
export function translateStatusRoute(options: TranslateStatusOptions) {
  const { checks, probes, translator, kafka, orm, topicPrefix } = options;
  return defineRoute({
    method: 'get',
    path: '/api/admin/translate/status',
    summary: 'Translation service health',
    description:
      "Online state of the translator and of each process the gateway can see, with their dependencies; each engine's health and breaker state; the queue length (unpublished outbox rows, plus the consumer lag of the engine consumers on the request topic and on the retry topic); the dead-letter count and newest entries; the backfills (running ones first, then the latest ended) with their progress: done, failed, remaining, rate and ETA. A part that cannot be read says why instead of failing the page.",
    tags: ['admin: translation'],
    access: 'admin',
    response: { status: 200, description: 'Health of the processes.', schema: translateStatusSchema },
    handler: async ({ req, signal }) => {
      const id = requestId(req);
      const [gateway, others, engines, queue, deadLetters, backfills] = await Promise.all([
        checkReadiness(checks).then((report): ProcessStatus => ({ online: true, ...report })),
        Promise.all(probes.map((probe) => probeProcess(probe, signal))),
        engineStatus(translator, id, signal, PROBE_TIMEOUT_MS),
        queueLength(orm, kafka, topicPrefix, PROBE_TIMEOUT_MS),
        deadLetterSummary(orm, LATEST_DEAD_LETTERS),
        backfillSummary(orm, LATEST_BACKFILLS),
      ]);
      const processes: Record<string, ProcessStatus> = { gateway };
      probes.forEach((probe, i) => (processes[probe.name] = others[i] as ProcessStatus));
      const translatorStatus = processes.translator ?? offline('translator is not configured');
      return {
        translator: translatorStatus,
        processes,
        engines,
        queue,
        dead_letters: deadLetters,
        backfills,
        checked_at: new Date().toISOString(),
      };
    },
  });
}

async function probeProcess(probe: ProcessProbe, signal: AbortSignal): Promise<ProcessStatus> {
  try {
    const report = await fetchReadiness(
      probe.baseUrl,
      AbortSignal.any([signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]),
    );
    return { online: true, ...report };
  } catch (err) {
    return offline(err instanceof Error ? err.message : String(err));
  }
}

function offline(error: string): ProcessStatus {
  return { online: false, status: 'offline', dependencies: {}, error };
}
