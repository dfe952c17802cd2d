import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * How often the event-loop delay histogram behind the `nodejs_eventloop_lag_*` metrics samples, in
 * milliseconds. prom-client's default, 10, is a libuv timer firing 100 times a second in every
 * process, busy or idle: an idle gateway's only wake-ups (`strace -e epoll_pwait`), each taking a core
 * from what runs beside it (APy's pipeline in bench:apertium). At 100 ms the histogram still measures
 * every delay its timer sees; a stall shorter than 100 ms is seen by chance, in proportion to its
 * length, instead of almost always (docs/decisions.md, "The event-loop delay histogram samples every 100 ms").
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/** One Prometheus registry per process, with Node's default metrics and a `service` label. */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

export function httpDurationHistogram(registry: Registry): Histogram<'method' | 'route' | 'status'> {
  return new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, matched route and status code',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
}

/** A label-less gauge whose value is read at each scrape (a state a process holds, such as 1/0). */
export function scrapedGauge(
  registry: Registry,
  metric: { readonly name: string; readonly help: string; readonly read: () => number },
): void {
  new Gauge({
    name: metric.name,
    help: metric.help,
    registers: [registry],
    collect() {
      this.set(metric.read());
    },
  });
}

/**
 * `create` run once per registry: metrics that several consumers (or tests) register on one registry
 * are made once, and a fresh registry gets fresh ones. prom-client refuses a name registered twice.
 */
export function perRegistry<T>(create: (registry: Registry) => T): (registry: Registry) => T {
  const made = new WeakMap<Registry, T>();
  return (registry) => {
    let value = made.get(registry);
    if (value === undefined) {
      value = create(registry);
      made.set(registry, value);
    }
    return value;
  };
}
