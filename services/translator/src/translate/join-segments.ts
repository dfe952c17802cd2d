import type { Segmented } from '@tp/translation';

import type { ChainItem, ChainItemError, ChainResult } from '../chain/index.js';

/**
 * The chain's answers for the segments of one text, as the text's one answer: the segments' texts
 * put back in place (`reassemble`), or the first segment's error (a document is not translated in
 * part). The engines of all segments are named (`a+b` when two served), `truncated` and `fallback`
 * hold when they do for any segment, unknown words are summed, and the attempts and route are those
 * of the first segment an engine translated. No segments (markup without words): the text as it is.
 */
export function joinSegments(items: readonly ChainItem[], { reassemble }: Segmented): ChainItem {
  const failed = items.find((item): item is ChainItemError => item instanceof Error);
  if (failed) return failed;
  const results = items as readonly ChainResult[];
  const [only] = results;
  if (results.length === 1 && only) return { ...only, text: reassemble([only.text]) };
  const engines = [...new Set(results.flatMap(({ engine }) => engine?.split('+') ?? []))];
  const counts = results.flatMap(({ unknownWords }) => unknownWords ?? []);
  const lead = results.find(({ engine }) => engine !== undefined);
  return {
    text: reassemble(results.map(({ text }) => text)),
    engine: engines.length > 0 ? engines.join('+') : undefined,
    truncated: results.some(({ truncated }) => truncated),
    fallback: results.some(({ fallback }) => fallback),
    ...(lead?.detectedSource ? { detectedSource: lead.detectedSource } : {}),
    attempts: lead?.attempts ?? [],
    route: lead?.route ?? [],
    ...(counts.length > 0 ? { unknownWords: counts.reduce((sum, n) => sum + n, 0) } : {}),
  };
}
