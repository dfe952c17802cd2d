import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import express, { type Express, type Response } from 'express';

/**
 * The console's own policy: scripts, styles and data only from the gateway, no inline script or
 * style, no framing, no form posts elsewhere. The console calls the admin API on the same origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** services/gateway/console: public/ (page and styles) and dist/ (the compiled TypeScript). */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

function secure(res: Response): void {
  res.setHeader('content-security-policy', CONSOLE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cache-control', 'no-cache');
}

/**
 * Serves the operator console at /console: static and public (pages and scripts hold no data and no
 * key); everything it shows comes from the admin API, called with the key the operator signs in with.
 * Mounted before the API routes; /console/app needs `npm run build` (tsc compiles the console).
 */
export function serveConsole(app: Express): void {
  const index = `${CONSOLE_DIR}public/index.html`;
  const page = (_req: unknown, res: Response) => {
    secure(res);
    res.sendFile(index);
  };
  app.get('/console', page);
  app.get('/console/', page);
  // The console's icon is /console/static/favicon.svg (linked from the page); a browser that asks
  // for the conventional /favicon.ico (a JSON answer opened in a tab) learns there is none here,
  // once a day, instead of a 404 on every page.
  app.get('/favicon.ico', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=86400');
    res.status(204).end();
  });
  const options = { setHeaders: secure, index: false, fallthrough: true, dotfiles: 'deny' as const };
  app.use('/console/static', express.static(`${CONSOLE_DIR}public`, options));
  app.use('/console/app', express.static(`${CONSOLE_DIR}dist`, { ...options, extensions: ['js'] }));
}

/** Whether the console's scripts were compiled (they come from `npm run build`). */
export const consoleBuilt = (): boolean => existsSync(`${CONSOLE_DIR}dist/main.js`);
