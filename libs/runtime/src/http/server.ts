import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';

import type { Express } from 'express';

import { ConfigError } from '../config.js';

/**
 * A handler that may take a request before Express does: it returns true when it has taken it (and
 * will answer or hand it to Express itself), false to let Express have it untouched.
 */
export type FastLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Listens on host:port; a port that cannot be bound is a configuration error naming the setting. */
export function listen(
  app: Express,
  port: number,
  host: string,
  portSetting: string,
  lane?: FastLane,
): Promise<Server> {
  const handler: RequestListener = lane
    ? (req, res) => {
        if (!lane(req, res)) app(req, res);
      }
    : app;
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new ConfigError(portSetting, `cannot listen on ${host}:${port} (${err.code ?? err.message})`));
    });
  });
}

/** Stops accepting connections, lets in-flight requests finish, then drops idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
