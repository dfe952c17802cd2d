import { createHash } from 'node:crypto';

/** SHA-256 hex of a text (UTF-8), as stored in source_hash and carried by the translation events. */
export function sourceHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
