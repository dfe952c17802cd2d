import { Counter, type Registry } from 'prom-client';

const METRIC = 'kafka_client_requests_total';

/** Requests this process's consumers and producers sent to the brokers, by client kind and API. */
const tally = new Map<string, { readonly client: string; readonly api: string; count: number }>();

/** What counting needs of a kafkajs consumer or producer: its instrumentation events. */
interface Instrumented {
  readonly events: { readonly REQUEST: string };
  on(event: string, listener: (event: { payload: { apiName: string } }) => void): unknown;
}

/**
 * Counts every request the client sends (kafkajs's `network.request` event: fetches, produces,
 * offset commits, heartbeats...). A plain tally: `kafka_client_requests_total` reads it on /metrics,
 * so `npm run bench:pipeline` can say how many requests a planned message costs.
 */
export function countRequests(client: Instrumented, kind: 'consumer' | 'producer'): void {
  client.on(client.events.REQUEST, ({ payload }) => {
    const key = `${kind}\u0000${payload.apiName}`;
    const entry = tally.get(key);
    if (entry) entry.count += 1;
    else tally.set(key, { client: kind, api: payload.apiName, count: 1 });
  });
}

/** Registers `kafka_client_requests_total{client, api}` (the process's tally) once per registry. */
export function kafkaRequestsMetric(registry: Registry): void {
  if (registry.getSingleMetric(METRIC)) return;
  new Counter({
    name: METRIC,
    help: 'Requests sent to Kafka by the consumers and producers of this process, by client kind and API',
    labelNames: ['client', 'api'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { client, api, count } of tally.values()) this.inc({ client, api }, count);
    },
  });
}
