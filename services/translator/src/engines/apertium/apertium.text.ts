/**
 * What we send to APy and how we read its answer. APy runs its HTML deformatter by default, and
 * marks words it could not translate: `*word` (unknown to the analyser), `@word` (no entry in the
 * bilingual dictionary), `#word` (no form could be generated). To tell those marks from the same
 * characters in the text, every literal `*`, `@` and `#` is sent as a character reference, with `&`,
 * `<` and `>` (HTML to the deformatter); APy copies references through untouched. So in the answer
 * every bare mark is APy's, and the references are decoded after the marks are gone.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '*': '&ast;',
  '@': '&commat;',
  '#': '&num;',
};
const UNESCAPES = new Map(Object.entries(ESCAPES).map(([char, reference]) => [reference, char]));

const SPECIAL = /[&<>*@#]/g;
const REFERENCE = /&(?:amp|lt|gt|ast|commat|num);/g;
/**
 * A mark and the word it is on (APy's own pattern for marked words is `[*]([^.,;:\t* ]+)`); a `#`
 * after `&` belongs to a numeric reference APy passed through, not to a mark.
 */
const MARK = /(?:[*@]|(?<!&)#)(?=[^\s.,;:*@#])/g;
const STRAY_MARK = /[*@]|(?<!&)#/g;

/** The text as APy must receive it. */
export function toApertiumText(text: string): string {
  return text.replace(SPECIAL, (char) => ESCAPES[char] as string);
}

/** APy's answer without its marks (and how many words were marked), with our references decoded. */
export function fromApertiumText(output: string): { text: string; unknownWords: number } {
  const unknownWords = output.match(MARK)?.length ?? 0;
  const text = output
    .replace(STRAY_MARK, '')
    .replace(REFERENCE, (reference) => UNESCAPES.get(reference) as string);
  return { text, unknownWords };
}

/** What encodeURIComponent leaves or writes otherwise than the form serialiser. */
const FORM_DIFFERS = /%20|[!'()~]/g;
const FORM_CODES: Readonly<Record<string, string>> = {
  '%20': '+',
  '!': '%21',
  "'": '%27',
  '(': '%28',
  ')': '%29',
  '~': '%7E',
};

/**
 * A value as `application/x-www-form-urlencoded` writes it (URLSearchParams): letters, digits and
 * `*-._` as they are, a space as `+`, every other character percent-encoded as UTF-8.
 */
export function formValue(value: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate (URIError): the serialiser writes U+FFFD for it; rare enough to ask it.
    return new URLSearchParams({ v: value }).toString().slice(2);
  }
  return encoded.replace(FORM_DIFFERS, (char) => FORM_CODES[char] as string);
}
