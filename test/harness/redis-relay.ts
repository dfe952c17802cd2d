import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP relay to a real Redis that can stop passing its replies on: a Redis that hangs. */
export interface RedisRelay {
  /** `redis://` URL of the relay, same database as the target. */
  readonly url: string;
  /** Replies from here on are dropped (commands still reach Redis). */
  hang(): void;
  close(): Promise<void>;
}

export async function redisRelay(target: string): Promise<RedisRelay> {
  const to = new URL(target);
  let hung = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(to.port || 6379), to.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!hung) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}${to.pathname}`,
    hang: () => {
      hung = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
