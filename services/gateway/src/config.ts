import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

/** Gateway settings (environment variables); documented in README "Configuration". */
export const gatewaySettings = z.object({
  ...commonSettings,
  PORT: env.port(3000),
  TRANSLATOR_URL: env.url(['http', 'https'], 'http://127.0.0.1:3004'),
  NLI_URL: env.url(['http', 'https'], 'http://127.0.0.1:3005'),
});

export type GatewayConfig = z.infer<typeof gatewaySettings>;

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env): GatewayConfig =>
  parseEnv(gatewaySettings, source);
