import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

/** NLI service settings (environment variables); documented in README "Configuration". */
export const nliSettings = z.object({
  ...commonSettings,
  PORT: env.port(3005),
});

export type NliConfig = z.infer<typeof nliSettings>;

export const loadNliConfig = (source: NodeJS.ProcessEnv = process.env): NliConfig =>
  parseEnv(nliSettings, source);
