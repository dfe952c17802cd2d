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

/** Chat-completion settings of the gateway; documented in README "Configuration". */
export const chatSettings = {
  /** JSON array of providers, in fallback order; `[]` (default) means chat answers 503. */
  CHAT_PROVIDERS: env.json(z.array(providerSetting), '[]'),
  /**
   * JSON object: alias -> model, or list of models tried in order. An entry `provider/model` names
   * one provider; a bare model means every provider serving it, in CHAT_PROVIDERS order.
   */
  CHAT_MODEL_ALIASES: env.json(
    z.record(z.string().min(1), z.union([z.string(), z.array(z.string()).min(1)])),
    '{}',
  ),
  /** What checks user messages before the call: nothing, the keyword terms, or keywords then NLI. */
  CHAT_GUARDRAIL: z.enum(['off', 'keyword', 'keyword+nli']).default('keyword'),
  /**
   * Longest wait, in ms, for a streaming client that reads nothing while the gateway has chunks for
   * it; then its connection is closed and the provider call aborted (the gateway stops reading the
   * provider while it waits, so it never buffers more than one read).
   */
  CHAT_STREAM_STALL_MS: env.positiveInt(30_000),
  /** Tries to write one usage record (the first included) before it is logged in full as lost. */
  CHAT_USAGE_WRITE_ATTEMPTS: env.positiveInt(5),
  /** Wait before the second try of a usage write, in ms; doubled before each further one. */
  CHAT_USAGE_RETRY_MS: env.positiveInt(200),
  /** Most NLI calls one chat request has in flight at once (`keyword+nli`). */
  CHAT_NLI_CONCURRENCY: env.positiveInt(4),
  /**
   * Longest text of one NLI call, in characters: the nli service's own NLI_MAX_TEXT_CHARS (same
   * variable, so one setting serves both); longer chat messages are checked in pieces of this size.
   */
  NLI_MAX_TEXT_CHARS: env.positiveInt(2000),
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
