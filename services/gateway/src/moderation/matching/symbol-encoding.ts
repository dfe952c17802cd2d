import { fromCharCodes } from '../normalise/normalise.js';

/**
 * An ASCII spelling of normalised text for the automaton. modern-ahocorasick steps through text by
 * grapheme clusters and runs Intl.Segmenter on anything non-ASCII: a search of 1,000 Chinese
 * characters took 0.10-0.15 ms at p50 and 0.65 ms at p99 that way, against 0.04 / 0.09 ms on this
 * spelling, where ASCII takes the library's fast path (docs/moderation.md, "Matching").
 *
 * Printable ASCII stands for itself. Every other character some term uses gets a three-character
 * code: a lead from LEADS, then two from TRAILS. Neither set occurs in normalised text (it has no
 * controls and no upper case), so a code can only match at its own start. A run of characters that
 * no term uses becomes one FILLER, which no term contains.
 */
const LEADS = '\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f';
const TRAILS =
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f';
const FILLER = 0;

/** How many distinct non-ASCII characters the terms may use in all (10 x 43 x 43). */
export const SYMBOL_CAPACITY = LEADS.length * TRAILS.length * TRAILS.length;

const isPlain = (unit: number) => unit >= 0x20 && unit < 0x7f && !(unit >= 0x41 && unit <= 0x5a);

export interface EncodedText {
  readonly text: string;
  /** positions[k]: index in the normalised text of encoded unit k; positions[text.length] is its length. */
  readonly positions: Int32Array;
}

export class SymbolTable {
  private readonly codes = new Map<number, string>();

  /** The ASCII spelling of a term, giving codes to characters not seen before; undefined when full. */
  encodeTerm(term: string): string | undefined {
    let out = '';
    for (let i = 0; i < term.length;) {
      const codePoint = term.codePointAt(i) as number;
      i += codePoint > 0xffff ? 2 : 1;
      if (isPlain(codePoint)) {
        out += String.fromCharCode(codePoint);
        continue;
      }
      const code = this.codes.get(codePoint) ?? this.assign(codePoint);
      if (code === undefined) return undefined;
      out += code;
    }
    return out;
  }

  /** The ASCII spelling of a normalised text, with the way back to its indices. */
  encodeText(text: string): EncodedText {
    // Each unit becomes at most three: sized once, no growing (this runs on every request).
    const units = new Uint16Array(text.length * 3);
    const positions = new Int32Array(text.length * 3 + 1);
    let length = 0;
    let i = 0;
    while (i < text.length) {
      const unit = text.charCodeAt(i);
      if (isPlain(unit)) {
        units[length] = unit;
        positions[length] = i;
        length += 1;
        i += 1;
        continue;
      }
      const codePoint = text.codePointAt(i) as number;
      const code = this.codes.get(codePoint);
      if (code !== undefined) {
        for (let k = 0; k < code.length; k++) {
          units[length] = code.charCodeAt(k);
          positions[length] = i;
          length += 1;
        }
      } else if (length === 0 || units[length - 1] !== FILLER) {
        units[length] = FILLER;
        positions[length] = i;
        length += 1;
      }
      i += codePoint > 0xffff ? 2 : 1;
    }
    positions[length] = text.length;
    return { text: fromCharCodes(units.subarray(0, length)), positions: positions.subarray(0, length + 1) };
  }

  private assign(codePoint: number): string | undefined {
    const n = this.codes.size;
    if (n >= SYMBOL_CAPACITY) return undefined;
    const t = TRAILS.length;
    const code =
      LEADS.charAt(Math.floor(n / (t * t))) + TRAILS.charAt(Math.floor(n / t) % t) + TRAILS.charAt(n % t);
    this.codes.set(codePoint, code);
    return code;
  }
}
