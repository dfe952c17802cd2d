import { ConfigError, env } from '@tp/runtime';
import { z } from 'zod';

/** One OpenAI-compatible upstream (OpenAI, vLLM, Ollama, LiteLLM...). */
const providerSetting = z.strictObject({
  /** Used in logs, usage records, `provider/model` alias targets and `owned_by` of GET /v1/models. */
  // not user text: the operator's provider configuration
  name: z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, { error: 'must be lower-case letters, digits, _ . -' }),
  /** Base URL up to and including the version, e.g. `https://api.openai.com/v1`. */
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  /** Name of the environment variable holding the provider's key (keeps secrets out of this JSON). */
  api_key_env: z.string().min(1).optional(),
  /** Models this provider serves, as the provider names them. */
  models: z.array(z.string().min(1)).min(1),
  /** Longest wait for the provider's first byte, and between two chunks of a stream, in ms. */
  timeout_ms: z.number().int().positive().default(60_000),
});

/** Chat-completion settings of the gateway (part of its config.ts; listed in docs/configuration.md). */
export const chatSettings = {
  CHAT_PROVIDERS: env
    .json(z.array(providerSetting), '[]')
    .describe(
      'JSON array of OpenAI-compatible providers in fallback order: `{"name", "base_url", "api_key_env"?, "models": [...], "timeout_ms"?}`; empty: `/v1/chat/completions` answers 503',
    ),
  CHAT_MODEL_ALIASES: env
    .json(z.record(z.string().min(1), z.union([z.string(), z.array(z.string()).min(1)])), '{}')
    .describe(
      'JSON object alias -> model or list of models tried in order (`provider/model` names one provider)',
    ),
  CHAT_GUARDRAIL: z
    .enum(['off', 'keyword', 'keyword+nli'])
    .default('keyword')
    .describe(
      'checks of the messages before a chat call: `off`, `keyword` (the moderation terms) or `keyword+nli` (fails closed with 503 when NLI cannot answer)',
    ),
};

/**
 * Named constants of the chat relay (tests shorten them in-process):
 * - CHAT_STREAM_STALL_MS: a streaming client that reads nothing this long while chunks wait is let go;
 * - CHAT_USAGE_WRITE_ATTEMPTS, CHAT_USAGE_RETRY_MS: tries of one usage write and the first wait
 *   (doubled each time), a few seconds in all, then the record is logged whole and counted lost;
 * - CHAT_NLI_CONCURRENCY: NLI calls of one request in flight with `keyword+nli`, enough to check a
 *   long request in pieces without one request taking the nli service.
 */
export const CHAT_TUNING = {
  CHAT_STREAM_STALL_MS: 30_000,
  CHAT_USAGE_WRITE_ATTEMPTS: 5,
  CHAT_USAGE_RETRY_MS: 200,
  CHAT_NLI_CONCURRENCY: 4,
};

export type ProviderSetting = z.output<typeof providerSetting>;

export interface Provider {
  readonly name: string;
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly models: readonly string[];
  readonly timeoutMs: number;
}

/**
 * Providers with their keys read from the environment; a provider naming a key variable that is
 * not set stops the start (a misconfigured upstream should not surface as 502s at run time).
 */
export function resolveProviders(
  settings: readonly ProviderSetting[],
  source: NodeJS.ProcessEnv = process.env,
): Provider[] {
  const names = new Set<string>();
  return settings.map((setting) => {
    if (names.has(setting.name)) {
      throw new ConfigError('CHAT_PROVIDERS', `provider name "${setting.name}" is used twice`);
    }
    names.add(setting.name);
    const apiKey = setting.api_key_env === undefined ? undefined : source[setting.api_key_env];
    if (setting.api_key_env !== undefined && !apiKey) {
      throw new ConfigError(
        'CHAT_PROVIDERS',
        `provider "${setting.name}" reads its key from ${setting.api_key_env}, which is not set`,
      );
    }
    return {
      name: setting.name,
      // not user text: a configured base URL
      baseUrl: setting.base_url.replace(/\/+$/, ''),
      apiKey,
      models: setting.models,
      timeoutMs: setting.timeout_ms,
    };
  });
}
