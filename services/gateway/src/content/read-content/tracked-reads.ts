import type { Logger } from '@tp/runtime';
import { bounded, connectInBackground, withBufferReplies, type RedisClient } from '@tp/redis';

/** A cached text read on the tracking connection, and what decides whether it may be trusted. */
export interface TrackedRead {
  /** The text as stored, sharing the socket's buffer (copy it to keep it). */
  readonly raw: Buffer;
  /** The connection it was read on (see TrackedReads): trust ends with it. */
  readonly session: number;
  /** How many invalidations this process had received when the read was sent. */
  readonly invalidations: number;
  /** performance.now() ms at which Redis expires the key (the read's send time + its PTTL), or 0. */
  readonly expiresAt: number;
}

/**
 * Reads of the read cache on a Redis connection of their own with client-side-caching tracking on
 * (RESP3, `CLIENT TRACKING ON`): Redis remembers the keys this connection read and sends an
 * invalidation when one of them is written, deleted, expires or is evicted (or when everything is
 * flushed). A text read here may then be answered again without reading Redis until its key is
 * invalidated, its expiry comes, or the connection drops (invalidations may be lost with it, so trust
 * ends with the connection: `session`). A read racing an invalidation (any key's: a counter, not a
 * per-key record) is not trusted. Until the connection is ready, `read` answers undefined and the
 * caller reads as before (docs/decisions.md, "Hot paths answered before Express (fast lanes)").
 */
export class TrackedReads {
  #client: ReturnType<typeof trackingClient> | undefined;
  #buffers: ReturnType<typeof withBufferReplies> | undefined;
  #session = 0;
  #invalidations = 0;
  #listener: (key: string | undefined) => void = () => undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly logger: Logger,
    private readonly timeoutMs = 250,
    /** The connection's name in Redis (CLIENT LIST). */
    private readonly name = 'gateway-read-tracking',
  ) {}

  /** Who hears of invalidated keys (undefined: every key). */
  listen(listener: (key: string | undefined) => void): void {
    this.#listener = listener;
  }

  /** Opens the tracking connection in the background (the reads go the usual way until it is ready). */
  start(): void {
    const client = trackingClient(this.redis, this.name);
    let down = false;
    // Any break of the connection may have lost invalidations: what was read on it is not trusted again.
    const newSession = () => {
      this.#session += 1;
    };
    client.on('error', (err: Error) => {
      newSession();
      if (down) return;
      down = true;
      this.logger.warn(
        { err: err.message },
        'redis tracking connection unavailable; reading the read cache each time',
      );
    });
    client.on('end', newSession);
    client.on('ready', () => {
      newSession();
      down = false;
    });
    client.on('invalidate', (key: Buffer | string | null) => {
      this.#invalidations += 1;
      if (key === null) newSession();
      this.#listener(key === null ? undefined : key.toString());
    });
    this.#client = client;
    this.#buffers = withBufferReplies(client as unknown as RedisClient);
    connectInBackground(client as unknown as RedisClient);
  }

  async stop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#session += 1;
    if (client?.isOpen) await client.close();
  }

  /**
   * The field of a hash read on the tracking connection, with its expiry (one round trip, two
   * commands); a missing field, Redis slow, or the connection not ready: undefined from the promise;
   * no promise at all when the connection is not ready (read the usual way).
   */
  read(key: string, field: string): Promise<TrackedRead | undefined> | undefined {
    const buffers = this.#buffers;
    if (!buffers || !this.#client?.isReady) return undefined;
    const [session, invalidations, sent] = [this.#session, this.#invalidations, performance.now()];
    return bounded(Promise.all([buffers.hGet(key, field), buffers.pTTL(key)]), this.timeoutMs).then(
      ([raw, ttl]) =>
        raw instanceof Buffer
          ? { raw, session, invalidations, expiresAt: ttl > 0 ? sent + ttl : 0 }
          : undefined,
      () => undefined,
    );
  }

  /**
   * Until when (performance.now() ms) `read` may be answered without reading Redis again: 0 when an
   * invalidation came since it was sent, the connection changed, or the key has no expiry. Asked when
   * the read is kept, in the same turn of the event loop as its reply (invalidations arrive as socket
   * data, never between two promise continuations).
   */
  trustedUntil(read: TrackedRead): number {
    return read.session === this.#session && read.invalidations === this.#invalidations ? read.expiresAt : 0;
  }

  /** Whether something read in `session` and trusted until `until` may be answered at `now`. */
  trusts(session: number, until: number, now: number): boolean {
    return now < until && session === this.#session && this.#client?.isReady === true;
  }
}

/** The gateway's Redis settings on a RESP3 connection of its own that receives invalidations. */
const trackingClient = (redis: RedisClient, name: string) =>
  redis.duplicate({ RESP: 3, emitInvalidate: true, name });
