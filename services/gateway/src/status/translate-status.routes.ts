import { checkReadiness, type DependencyCheck } from '@tp/runtime';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';

const dependencySchema = z.object({
  status: z.enum(['up', 'down']),
  required: z.boolean(),
  latency_ms: z.number(),
  error: z.string().optional(),
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
    checked_at: z.iso.datetime(),
  })
  .meta({ id: 'TranslateStatus' });

export interface ProcessProbe {
  readonly name: string;
  readonly baseUrl: string;
}

type ProcessStatus = z.infer<typeof processSchema>;

/** GET /api/admin/translate/status: health of the gateway and of every process it can reach. */
export function translateStatusRoute(
  gatewayChecks: readonly DependencyCheck[],
  probes: readonly ProcessProbe[],
) {
  return defineRoute({
    method: 'get',
    path: '/api/admin/translate/status',
    summary: 'Translation service health',
    description:
      'Online state of the translator and of each process the gateway can see, with their dependencies.',
    tags: ['admin: translation'],
    access: 'admin',
    response: { status: 200, description: 'Health of the processes.', schema: translateStatusSchema },
    handler: async ({ signal }) => {
      const [gateway, ...others] = await Promise.all([
        checkReadiness(gatewayChecks).then((report): ProcessStatus => ({ online: true, ...report })),
        ...probes.map((probe) => probeProcess(probe, signal)),
      ]);
      const processes: Record<string, ProcessStatus> = { gateway: gateway as ProcessStatus };
      probes.forEach((probe, i) => (processes[probe.name] = others[i] as ProcessStatus));
      const translator = processes.translator ?? offline('translator is not configured');
      return { translator, processes, checked_at: new Date().toISOString() };
    },
  });
}

async function probeProcess(probe: ProcessProbe, signal: AbortSignal): Promise<ProcessStatus> {
  try {
    const res = await fetch(new URL('/ready', probe.baseUrl), {
      signal: AbortSignal.any([signal, AbortSignal.timeout(2000)]),
    });
    const body = (await res.json()) as { status?: string; dependencies?: ProcessStatus['dependencies'] };
    return {
      online: true,
      status: body.status === 'ready' ? 'ready' : 'not_ready',
      dependencies: body.dependencies ?? {},
    };
  } catch (err) {
    return offline(err instanceof Error ? err.message : String(err));
  }
}

function offline(error: string): ProcessStatus {
  return { online: false, status: 'offline', dependencies: {}, error };
}
