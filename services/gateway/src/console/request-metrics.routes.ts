import type { Registry } from 'prom-client';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';

const seriesSchema = z.object({
  method: z.string(),
  route: z.string().meta({ description: 'The route template (or a fixed label for unmatched paths).' }),
  status: z.int(),
  count: z.int().nonnegative().meta({ description: 'Requests answered since the gateway started.' }),
});

/**
 * GET /api/admin/metrics/requests: the gateway's request counters (the count of its
 * http_request_duration_seconds histogram) for admins, who cannot read /metrics through a proxy.
 * The console charts translations and errors per second from two readings.
 */
export function requestMetricsRoute(metrics: Registry) {
  return defineRoute({
    method: 'get',
    path: '/api/admin/metrics/requests',
    summary: "The gateway's request counters",
    description:
      'Requests answered since the gateway started, per method, route and status (the count of `http_request_duration_seconds` on /metrics). Rates come from two readings.',
    tags: ['admin: metrics'],
    access: 'admin',
    response: {
      status: 200,
      description: 'The counters and when they were read.',
      schema: z.object({
        at: z.iso.datetime(),
        uptime_seconds: z.number().nonnegative(),
        series: z.array(seriesSchema),
      }),
    },
    handler: async () => {
      const metric = metrics.getSingleMetric('http_request_duration_seconds');
      const values = metric ? (await metric.get()).values : [];
      const series = values
        .filter((v) => (v as { metricName?: string }).metricName === 'http_request_duration_seconds_count')
        .map((v) => ({
          method: String(v.labels.method ?? ''),
          route: String(v.labels.route ?? ''),
          status: Number(v.labels.status ?? 0),
          count: v.value,
        }));
      return { at: new Date().toISOString(), uptime_seconds: process.uptime(), series };
    },
  });
}
