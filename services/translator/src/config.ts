import { commonSettings } from '@tp/platform';
import { env, parseEnv } from '@tp/runtime';
import { z } from 'zod';

/** Translator settings (environment variables); documented in README "Configuration". */
export const translatorSettings = z.object({
  ...commonSettings,
  PORT: env.port(3004),
});

export type TranslatorConfig = z.infer<typeof translatorSettings>;

export const loadTranslatorConfig = (source: NodeJS.ProcessEnv = process.env): TranslatorConfig =>
  parseEnv(translatorSettings, source);
