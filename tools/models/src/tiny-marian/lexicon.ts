/**
 * The word lists the tiny test models translate with, one source token to one target token, in order.
 * Documented in docs/models.md ("The lexicon"). Anything not listed here becomes `<unk>`, which the
 * offline engine treats as a failure: a test model must never invent output.
 *
 * Targets are written as plain words; the builder gives word targets the SentencePiece `▁` prefix
 * (a space before the word) and leaves punctuation targets bare, so `▁hello` `,` `▁world` decodes to
 * `hello, world`.
 */
export interface Lexicon {
  /** Opus-MT source language code (the folder is named `opus-mt-<source>-<target>-tiny`). */
  readonly source: string;
  readonly target: string;
  /** Lower-case the input before lookup; sources must then be written in lower case. */
  readonly lowercase: boolean;
  /** `[source token, target word]` pairs. A source token must not contain spaces. */
  readonly entries: readonly (readonly [string, string])[];
}

/** Simplified Chinese to English. Chinese has no spaces: the tokenizer picks the longest listed words. */
export const ZH_EN_LEXICON: Lexicon = {
  source: 'zh',
  target: 'en',
  lowercase: false,
  entries: [
    ['你好', 'hello'],
    ['世界', 'world'],
    ['我', 'I'],
    ['你', 'you'],
    ['他', 'he'],
    ['她', 'she'],
    ['我们', 'we'],
    ['他们', 'they'],
    ['是', 'is'],
    ['不', 'not'],
    ['好', 'good'],
    ['很', 'very'],
    ['喜欢', 'like'],
    ['爱', 'love'],
    ['猫', 'cat'],
    ['狗', 'dog'],
    ['书', 'book'],
    ['水', 'water'],
    ['茶', 'tea'],
    ['今天', 'today'],
    ['明天', 'tomorrow'],
    ['朋友', 'friend'],
    ['学生', 'student'],
    ['老师', 'teacher'],
    ['中国', 'China'],
    ['北京', 'Beijing'],
    ['谢谢', 'thanks'],
    ['再见', 'goodbye'],
    ['早上', 'morning'],
    ['晚上', 'evening'],
    ['吃', 'eat'],
    ['喝', 'drink'],
    ['看', 'see'],
    ['和', 'and'],
    ['大', 'big'],
    ['小', 'small'],
    ['，', ','],
    ['、', ','],
    ['。', '.'],
    ['！', '!'],
    ['？', '?'],
    ['：', ':'],
    [',', ','],
    ['.', '.'],
    ['!', '!'],
    ['?', '?'],
  ],
};

/** English to German, covering every English word above so zh -> de can pivot through English. */
export const EN_DE_LEXICON: Lexicon = {
  source: 'en',
  target: 'de',
  lowercase: true,
  entries: [
    ['hello', 'hallo'],
    ['world', 'Welt'],
    ['i', 'ich'],
    ['you', 'du'],
    ['he', 'er'],
    ['she', 'sie'],
    ['we', 'wir'],
    ['they', 'sie'],
    ['is', 'ist'],
    ['not', 'nicht'],
    ['good', 'gut'],
    ['very', 'sehr'],
    ['like', 'mag'],
    ['love', 'liebe'],
    ['cat', 'Katze'],
    ['dog', 'Hund'],
    ['book', 'Buch'],
    ['water', 'Wasser'],
    ['tea', 'Tee'],
    ['today', 'heute'],
    ['tomorrow', 'morgen'],
    ['friend', 'Freund'],
    ['student', 'Student'],
    ['teacher', 'Lehrer'],
    ['china', 'China'],
    ['beijing', 'Peking'],
    ['thanks', 'danke'],
    ['goodbye', 'tschüss'],
    ['morning', 'Morgen'],
    ['evening', 'Abend'],
    ['eat', 'essen'],
    ['drink', 'trinken'],
    ['see', 'sehen'],
    ['and', 'und'],
    ['big', 'groß'],
    ['small', 'klein'],
    [',', ','],
    ['.', '.'],
    ['!', '!'],
    ['?', '?'],
    [':', ':'],
  ],
};

/** The built-in lexicons by their `<source>-<target>` name. */
export const LEXICONS: Readonly<Record<string, Lexicon>> = {
  'zh-en': ZH_EN_LEXICON,
  'en-de': EN_DE_LEXICON,
};
