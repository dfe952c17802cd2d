import { normaliseLanguageTag, PUBLISHED_CODES } from '@tp/translation';
import { eld } from 'eld';

import { countChineseScript } from './chinese-script.js';
import { loadNeighbourWords, wordEvidence, type NeighbourWords } from './neighbour-words.js';
import { dominantScript, scriptProfile } from './script-profile.js';

export interface LanguageCandidate {
  /** Our language code. */
  readonly language: string;
  /** 0..1; the candidates' confidences add up to at most 1. */
  readonly confidence: number;
}

/**
 * Why no language is given: `no_letters` (digits, emoji, punctuation only), `too_short` (a few letters
 * that several languages share), `mixed` (no writing system has most of the text), `uncertain` (the
 * model's best guesses are too close).
 */
export type UndetectedReason = 'no_letters' | 'too_short' | 'mixed' | 'uncertain';

export interface Detection {
  /** Best first, at most MAX_CANDIDATES. */
  readonly candidates: readonly LanguageCandidate[];
  /** The best candidate, when the text says enough to trust it. */
  readonly language?: string;
  /** Set exactly when `language` is absent. */
  readonly reason?: UndetectedReason;
}

export interface LanguageDetector {
  detect(text: string): Detection;
}

/** eld's database sizes (eld's own names); `medium` is eld's default. */
export type DetectorSize = 'extrasmall' | 'small' | 'medium' | 'large';

export const MAX_CANDIDATES = 3;

/** Detection reads the start of a text: enough to tell any language, and a bound on the work. */
export const SAMPLE_UNITS = 2000;

/** The share of words (of the non-Latin ones) the main non-Latin script needs; below, `mixed`. */
const MIN_SHARE = 0.6;
/** Non-Latin words from which a text is read as written in its non-Latin script. */
const MATRIX_SHARE = 0.3;
const LATIN_WORDS = /\p{Script=Latin}{1,64}/gu;
/** Letters from which the model's best guess is trusted as it is; shorter text needs a lead. */
const LONG_TEXT = 20;
const MIN_LEAD = 0.05;
/** Letters a text of one unambiguous script needs (a lone 한 or の is not a text). */
const MIN_SCRIPT_LETTERS = 2;
/** Japanese writes kana in nearly every sentence; Chinese none. */
const MIN_KANA = 2;
/**
 * The platform's published languages are favoured over their neighbours by this factor on the
 * model's score: the gap at which eld cannot tell hi from mr, es from ca, ru from bg on short text
 * (measured by `npm run eval:detect`, docs/decisions.md "Language detection").
 */
const PUBLISHED_PRIOR = 0.02;
/** Turns score differences into confidences: a lead of 0.1 in eld's score is about e^5 to 1. */
const SHARPNESS = 50;

const PUBLISHED: ReadonlySet<string> = new Set(PUBLISHED_CODES);
/** eld codes that are not ours: its Kurdish is the Arabic-script one; its `ms` covers Indonesian. */
const ELD_CODES: Readonly<Record<string, readonly string[]>> = { ku: ['ckb'], ms: ['id', 'ms'] };

type Eld = ReturnType<typeof eld.newInstance>;
const hasLoader = (instance: Eld): instance is Eld & { load(size: string): Promise<unknown> } =>
  'load' in instance && typeof instance.load === 'function';

/** Loads eld's database (`medium`: about 70 MB of heap, half a second) and answers detections. */
export async function openLanguageDetector(size: DetectorSize = 'medium'): Promise<LanguageDetector> {
  // The package root is eld's dynamic entry: an instance has no database until load().
  const model = eld.newInstance();
  if (!hasLoader(model)) throw new Error('eld: expected the dynamic entry, which loads its database');
  await model.load(size);
  const words = loadNeighbourWords();
  return { detect: (text) => detectLanguage({ model, words }, text) };
}

interface Models {
  readonly model: Eld;
  readonly words: NeighbourWords;
}

function detectLanguage(models: Models, text: string): Detection {
  const sample = sampleOf(text);
  const { letters, han, kana, hangul, words } = scriptProfile(sample);
  if (letters === 0) return { candidates: [], reason: 'no_letters' };
  const total = Object.values(words).reduce((sum, count) => sum + count, 0);
  // A sentence in another script quotes Latin names, commands and terms; the reverse is rare. So
  // the text's language is of its main non-Latin script as soon as that script has a fair share.
  if (total - words.latin < MATRIX_SHARE * total) return byModel(models, sample, letters);
  const matrix = dominantScript(words, 'latin');
  if (!matrix || matrix.share < MIN_SHARE) {
    return { candidates: byModel(models, sample, letters).candidates, reason: 'mixed' };
  }
  switch (matrix.script) {
    case 'hangul':
      return byScript([{ language: 'ko', confidence: 1 }], hangul);
    case 'cjk':
      return kana >= MIN_KANA
        ? byScript([{ language: 'ja', confidence: 1 }], han + kana)
        : byScript(chinese(sample), han);
    default:
      return byModel(models, sample.replace(LATIN_WORDS, ' '), letters);
  }
}

function byScript(candidates: readonly LanguageCandidate[], letters: number): Detection {
  const [best] = candidates;
  if (!best || letters < MIN_SCRIPT_LETTERS) return { candidates, reason: 'too_short' };
  return { candidates, language: best.language };
}

/**
 * zh-CN or zh-TW by the characters only one script uses. A text written alike in both (你好) is
 * zh-CN, the spec's default source language, at even confidence.
 */
function chinese(sample: string): LanguageCandidate[] {
  const { simplified, traditional } = countChineseScript(sample);
  const simplifiedShare = (simplified + 1) / (simplified + traditional + 2);
  const candidates = [
    { language: 'zh-CN', confidence: round(simplifiedShare) },
    { language: 'zh-TW', confidence: round(1 - simplifiedShare) },
  ];
  return traditional > simplified ? candidates.reverse() : candidates;
}

/** eld's n-gram scores, in our codes, with the published prior and the neighbours' words, as confidences. */
function byModel({ model, words }: Models, sample: string, letters: number): Detection {
  const result = model.detect(sample);
  const scores = new Map<string, number>();
  for (const [code, score] of Object.entries(result.getScores())) {
    for (const ours of ELD_CODES[code] ?? [normaliseLanguageTag(code) ?? code]) {
      const prior = PUBLISHED.has(ours) ? 1 + PUBLISHED_PRIOR : 1;
      scores.set(ours, Math.max(scores.get(ours) ?? 0, score * prior));
    }
  }
  const ranked = withWordEvidence(
    words,
    sample,
    [...scores].sort((a, b) => b[1] - a[1]),
  );
  const [first] = ranked;
  if (!first) return { candidates: [], reason: letters < LONG_TEXT ? 'too_short' : 'uncertain' };
  const weights = ranked.map(([, score]) => Math.exp(SHARPNESS * (score - first[1])));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const candidates = ranked.slice(0, MAX_CANDIDATES).map(([language], i) => ({
    language,
    confidence: round((weights[i] as number) / total),
  }));
  if (!result.isReliable()) return { candidates, reason: letters < LONG_TEXT ? 'too_short' : 'uncertain' };
  // On short text the best must lead; a neighbour the prior already placed below a published
  // language (hi over mr, id over ms) is no rival.
  const rival = ranked.find(([code], i) => i > 0 && (PUBLISHED.has(code) || !PUBLISHED.has(first[0])));
  if (letters < LONG_TEXT && first[1] - (rival?.[1] ?? 0) < MIN_LEAD)
    return { candidates, reason: 'too_short' };
  return { candidates, language: first[0] };
}

/**
 * When the two best are the neighbour pair (pt and es), the words' log-likelihood ratio is added to
 * the model's log-odds between them (SHARPNESS turns a score difference into log-odds), which may
 * swap them.
 */
function withWordEvidence(
  words: NeighbourWords,
  sample: string,
  ranked: [string, number][],
): [string, number][] {
  const [first, second] = ranked;
  if (!first || !second) return ranked;
  const evidence = wordEvidence(words, sample, first[0], second[0]);
  if (evidence === undefined) return ranked;
  const adjusted: [string, number] = [second[0], second[1] - evidence / SHARPNESS];
  return [first, adjusted, ...ranked.slice(2)].sort((a, b) => b[1] - a[1]);
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** The first SAMPLE_UNITS UTF-16 units, without a lone high surrogate at the cut. */
function sampleOf(text: string): string {
  if (text.length <= SAMPLE_UNITS) return text;
  const cut = text.charCodeAt(SAMPLE_UNITS - 1);
  return text.slice(0, cut >= 0xd800 && cut <= 0xdbff ? SAMPLE_UNITS - 1 : SAMPLE_UNITS);
}
