/**
 * Several texts in one APy request. APy's cost is mostly per request (two formatter processes and a
 * flush of the whole pipeline each), so the texts of a call travel together, each between two
 * separators, and the answer is cut back at them.
 */
import { codePoints } from '@tp/runtime';

import { EngineError, type EngineItem } from '../engine.js';
import { fromApertiumText, toApertiumText } from './apertium.text.js';

/**
 * Between texts: a block-level element (a thematic break). APy's HTML deformatter ends the sentence
 * before it and keeps it in a superblank, which no stage moves and the reformatter writes back as
 * it came; no word crosses it. A text never holds one: its `<` is sent as `&lt;`.
 */
export const SEPARATOR = '<hr>';

/**
 * Most characters (code points) of one request's `q`. Under load APy cuts a longer `q` into at most
 * ten pieces of as few as 501 characters and silently drops the rest (split_for_translation in
 * apertium_apy/utils/translation.py); 5,000 always fits.
 */
export const MAX_REQUEST_CHARS = 5000;

export interface ApertiumRequest {
  /** The form value `q`. */
  readonly q: string;
  /** One item per text of the request, from its translated `q`. */
  answers(translated: string): EngineItem[];
}

/**
 * The requests for these texts, in order: consecutive texts share a request up to MAX_REQUEST_CHARS.
 * A text too long for any request (character references count) is an error of its own.
 */
export function apertiumRequests(texts: readonly string[]): (ApertiumRequest | EngineError)[] {
  const requests: (ApertiumRequest | EngineError)[] = [];
  let group: string[] = [];
  let size = SEPARATOR.length;
  const close = () => {
    if (group.length > 0) requests.push(request(group));
    group = [];
    size = SEPARATOR.length;
  };
  for (const text of texts) {
    const escaped = toApertiumText(text);
    const length = codePoints(escaped) + SEPARATOR.length;
    if (SEPARATOR.length + length > MAX_REQUEST_CHARS) {
      close();
      requests.push(tooLong(length));
      continue;
    }
    if (size + length > MAX_REQUEST_CHARS) close();
    group.push(escaped);
    size += length;
  }
  close();
  return requests;
}

function request(escaped: readonly string[]): ApertiumRequest {
  return {
    q: SEPARATOR + escaped.join(SEPARATOR) + SEPARATOR,
    answers(translated) {
      const parts = translated.split(SEPARATOR);
      const [before, ...rest] = parts;
      const after = rest.pop();
      if (rest.length !== escaped.length || before?.trim() !== '' || after?.trim() !== '') {
        const lost = new EngineError(
          'apertium',
          'rejected',
          `the answer has ${parts.length - 1} separators for ${escaped.length} texts`,
        );
        return escaped.map(() => lost);
      }
      return rest.map((part) => {
        const { text, unknownWords } = fromApertiumText(part);
        return { text, truncated: false, unknownWords };
      });
    },
  };
}

const tooLong = (length: number) =>
  new EngineError(
    'apertium',
    'rejected',
    `the text is ${length} characters with its character references; one APy request takes ${MAX_REQUEST_CHARS}`,
  );
