import { hash, randomBytes } from 'node:crypto';

/**
 * API keys look like `tp_` + 43 base64url characters (256 random bits). With that much entropy a
 * plain SHA-256 is the right hash: a slow password hash protects guessable secrets, and these are not.
 */
const KEY_PREFIX = 'tp_';
const KEY_SHAPE = /^tp_[A-Za-z0-9_-]{43}$/;
/** How many leading characters are kept in clear, to tell keys apart in lists. */
const SHOWN_CHARS = 11;

export interface NewKeyMaterial {
  readonly key: string;
  readonly hash: string;
  readonly prefix: string;
}

export function generateApiKey(): NewKeyMaterial {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, SHOWN_CHARS) };
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

export type BearerParse =
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string };

/** Reads `Authorization: Bearer <token>` (RFC 6750: scheme case-insensitive, one token68). */
export function parseBearer(header: string | undefined): BearerParse {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^Bearer {1,16}([A-Za-z0-9._~+/-]{1,512}={0,2}) {0,16}$/i.exec(header);
  return match?.[1] ? { kind: 'token', token: match[1] } : { kind: 'malformed' };
}
