/**
 * The doubles' deterministic "translation": a few phrases known in several languages. Anything else is
 * answered by each double as `[<provider target code>] <text>`, so a test sees which engine answered,
 * with which target code, and which chunk it got.
 */

export type PhraseLanguage = 'en' | 'de' | 'fr' | 'es' | 'it' | 'ja' | 'pt' | 'pt-BR' | 'zh-Hans' | 'zh-Hant';

type Phrase = Readonly<Partial<Record<PhraseLanguage, string>>>;

const PHRASES: readonly Phrase[] = [
  {
    en: 'Hello, world!',
    de: 'Hallo, Welt!',
    fr: 'Bonjour le monde !',
    es: '¡Hola, mundo!',
    it: 'Ciao, mondo!',
    ja: 'こんにちは、世界！',
    pt: 'Olá, mundo!',
    'zh-Hans': '你好，世界！',
    'zh-Hant': '你好，世界！',
  },
  {
    en: 'Good morning',
    de: 'Guten Morgen',
    fr: 'Bonjour',
    es: 'Buenos días',
    it: 'Buongiorno',
    ja: 'おはようございます',
    pt: 'Bom dia',
    'zh-Hans': '早上好',
    'zh-Hant': '早安',
  },
  {
    en: 'The bus is late',
    de: 'Der Bus hat Verspätung',
    fr: "L'autobus est en retard",
    es: 'El autobús llega tarde',
    it: "L'autobus è in ritardo",
    pt: 'O autocarro está atrasado',
    'pt-BR': 'O ônibus está atrasado',
    'zh-Hans': '公共汽车晚点了',
    'zh-Hant': '公車誤點了',
  },
  {
    en: 'Thank you',
    de: 'Danke',
    fr: 'Merci',
    es: 'Gracias',
    it: 'Grazie',
    ja: 'ありがとう',
    pt: 'Obrigado',
    'zh-Hans': '谢谢',
    'zh-Hant': '謝謝',
  },
];

const matches = (phrase: Phrase, text: string, from: PhraseLanguage | undefined): boolean =>
  from === undefined ? Object.values(phrase).includes(text) : phrase[from] === text;

/** The phrasebook translation of `text`, or undefined when the phrase is unknown. */
export function lookupPhrase(
  text: string,
  from: PhraseLanguage | undefined,
  to: PhraseLanguage,
): string | undefined {
  const phrase = PHRASES.find((p) => matches(p, text.trim(), from));
  if (!phrase) return undefined;
  return phrase[to] ?? (to === 'pt-BR' ? phrase.pt : undefined);
}

/** A crude detector: a known phrase's language, else Kana -> ja, Han -> zh-Hans, otherwise en. */
export function detectLanguage(text: string): PhraseLanguage {
  const trimmed = text.trim();
  for (const phrase of PHRASES) {
    for (const [language, value] of Object.entries(phrase)) {
      if (value === trimmed) return language as PhraseLanguage;
    }
  }
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'ja';
  if (/\p{Script=Han}/u.test(text)) return 'zh-Hans';
  return 'en';
}
