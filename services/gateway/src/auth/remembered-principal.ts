import { looksLikeApiKey, parseBearer } from './api-key.js';
import type { ApiKeyStore, Principal } from './api-key.store.js';

/**
 * The principal of a well-formed key this process remembers as valid, else undefined: what a fast
 * lane may act for without a lookup (everything else is the routes' authentication).
 */
export function rememberedPrincipal(keys: ApiKeyStore, header: string | undefined): Principal | undefined {
  const bearer = parseBearer(header);
  if (bearer.kind !== 'token' || !looksLikeApiKey(bearer.token)) return undefined;
  return keys.remembered(bearer.token);
}
