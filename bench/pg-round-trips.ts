// Counts the round trips a process makes to Postgres, from outside it: a TCP proxy between the
// process and the server that reads the client's side of the wire protocol. A round trip is a simple
// Query ('Q', which MikroORM sends for every statement, BEGIN and COMMIT included) or the Sync ('S')
// that ends an extended-protocol exchange. Nothing in the services is changed to be counted.
import { createServer, connect, type Server, type Socket } from 'node:net';

/** The protocol version of a StartupMessage; the other untyped messages (SSLRequest...) come before it. */
const STARTUP_CODE = 196608;

/**
 * Reads the frontend side of the Postgres wire protocol in whatever chunks it arrives, and counts the
 * messages that wait for the server's answer. Large messages (multi-row inserts) are skipped, not kept.
 */
export class FrontendMessageCounter {
  roundTrips = 0;
  /** Every byte the client sent (statement texts, parameters, protocol framing). */
  bytes = 0;
  /** Until the StartupMessage, messages have no type byte. */
  private started = false;
  /** Bytes of the current message's header read so far (type byte and length, or length and code). */
  private header = Buffer.alloc(0);
  /** Bytes of the current message's body still to skip. */
  private skip = 0;

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      const headerBytes = 8 - (this.started ? 3 : 0); // typed: 1 + 4; untyped: 4 + 4 (length, code)
      const take = Math.min(headerBytes - this.header.length, chunk.length - at);
      this.header = Buffer.concat([this.header, chunk.subarray(at, at + take)]);
      at += take;
      if (this.header.length < headerBytes) return;
      this.readHeader();
    }
  }

  private readHeader(): void {
    const header = this.header;
    this.header = Buffer.alloc(0);
    if (this.started) {
      const type = String.fromCharCode(header[0] as number);
      if (type === 'Q' || type === 'S') this.roundTrips += 1;
      this.skip = header.readInt32BE(1) - 4;
      return;
    }
    const length = header.readInt32BE(0);
    if (header.readInt32BE(4) === STARTUP_CODE) this.started = true;
    this.skip = length - 8;
  }
}

/** A counting proxy to `target` (host:port); its counts sum every connection made through it. */
export interface CountingProxy {
  readonly port: number;
  roundTrips(): number;
  /** Bytes the clients sent to Postgres. */
  bytesSent(): number;
  close(): Promise<void>;
}

export async function countingProxy(targetHost: string, targetPort: number): Promise<CountingProxy> {
  const counters: FrontendMessageCounter[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const counter = new FrontendMessageCounter();
    counters.push(counter);
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => counter.push(chunk));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    roundTrips: () => counters.reduce((sum, c) => sum + c.roundTrips, 0),
    bytesSent: () => counters.reduce((sum, c) => sum + c.bytes, 0),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
