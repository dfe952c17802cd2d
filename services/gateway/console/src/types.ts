// The shapes of the admin API's answers the console reads (see /docs, the OpenAPI document).

export interface Dependency {
  status: 'up' | 'degraded' | 'down';
  required: boolean;
  latency_ms: number;
  error?: string;
  reason?: string;
}
export interface ProcessState {
  online: boolean;
  status: 'ready' | 'not_ready' | 'offline';
  dependencies: Record<string, Dependency>;
  error?: string;
}
export interface Lag {
  topic: string;
  consumer_group: string;
  lag: number | null;
  error?: string;
}
export interface Status {
  processes: Record<string, ProcessState>;
  engines: {
    slots: {
      slot: string;
      engine: string | null;
      health: string;
      breaker: string | null;
      last_error: { reason: string; at: string } | null;
      successes: number;
      failures: number;
    }[];
    error?: string;
  };
  queue: {
    length: number | null;
    outbox: { unpublished: number | null; oldest_age_seconds: number | null; error?: string };
    requested: Lag;
    retry: Lag;
  };
  dead_letters: { count: number | null; error?: string };
  backfills: { latest: Backfill[]; error?: string };
  checked_at: string;
}
export interface Backfill {
  id: string;
  language: string;
  module: string | null;
  entity_type: string | null;
  status: 'running' | 'done' | 'cancelled' | 'stopped';
  total: number;
  done: number;
  failed: number;
  remaining: number;
  rate_per_s: number;
  eta_s: number | null;
}
export interface Pairs {
  pairs: { source: string; target: string; engines: string[]; via?: string }[];
}
export interface RequestCounters {
  at: string;
  series: { method: string; route: string; status: number; count: number }[];
}
export interface DeadLetterSummary {
  id: number;
  event_id: string | null;
  original_topic: string;
  original_partition: number;
  original_offset: number;
  key: string | null;
  consumer_group: string;
  error_code: string;
  error_message: string;
  attempts: number;
  failed_at: string;
}
export interface DeadLetter extends DeadLetterSummary {
  headers: Record<string, string>;
  payload: { encoding: 'json'; value: unknown } | { encoding: 'base64'; value: string; decode_error: string };
}
export interface DeadLetterKind {
  code: string;
  topic: string;
  group: string;
  count: number;
}
export interface DeadLetterPage {
  entries: DeadLetterSummary[];
  total: number;
  matched: number;
  kinds: DeadLetterKind[];
  next_before_id: number | null;
}
export interface Attempt {
  slot: string;
  engine: string | null;
  outcome: string;
  reason?: string;
  duration_ms: number;
}
export interface Translation {
  translatedText: string;
  source: string;
  target: string;
  engine: string;
  duration: number;
  cached?: boolean;
  route?: { source: string; target: string; engine: string }[];
  attempts?: Attempt[];
}
export interface ApiKey {
  id: string;
  name: string;
  role: 'client' | 'admin';
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  requests_per_day: number | null;
  characters_per_month: number | null;
  /** Characters of POST /api/v1/translate today and this month (UTC): by the engines, and cached. */
  characters: { today: number; cached_today: number; month: number; cached_month: number };
}
