import { PUBLISHED_CODES } from '@tp/translation';

import type { CorpusEntry } from '../corpus/build-corpus.js';

/** The detection goal: this share of each published language's sentences detected right. */
export const GOAL = 0.97;

export interface LanguageScore {
  readonly language: string;
  readonly published: boolean;
  readonly sentences: number;
  readonly correct: number;
  /** What its sentences were taken for instead, most often first (`(too_short)` when not detected). */
  readonly confusions: readonly (readonly [string, number])[];
}

/**
 * Runs `detect` on every sentence and scores it per language. `detect` answers our code, or a word in
 * parentheses when it gives none; `accept` says whether an answer counts for the sentence's language.
 */
export function evaluate(
  entries: readonly CorpusEntry[],
  detect: (text: string) => string,
  accept: (language: string, answer: string) => boolean = (language, answer) => language === answer,
): LanguageScore[] {
  const byLanguage = new Map<
    string,
    { sentences: number; correct: number; confusions: Map<string, number> }
  >();
  for (const { language, text } of entries) {
    const score = byLanguage.get(language) ?? { sentences: 0, correct: 0, confusions: new Map() };
    byLanguage.set(language, score);
    const answer = detect(text);
    score.sentences += 1;
    if (accept(language, answer)) score.correct += 1;
    else score.confusions.set(answer, (score.confusions.get(answer) ?? 0) + 1);
  }
  const order = [...PUBLISHED_CODES, ...[...byLanguage.keys()].sort()];
  return [...byLanguage]
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([language, score]) => ({
      language,
      published: (PUBLISHED_CODES as readonly string[]).includes(language),
      sentences: score.sentences,
      correct: score.correct,
      confusions: [...score.confusions].sort((a, b) => b[1] - a[1]),
    }));
}

export const accuracy = (score: LanguageScore): number => score.correct / Math.max(score.sentences, 1);

/** The published languages under the goal. */
export const missed = (scores: readonly LanguageScore[]): LanguageScore[] =>
  scores.filter((score) => score.published && accuracy(score) < GOAL);

/** A Markdown table: language, sentences, correct, what the misses were taken for. */
export function scoreTable(scores: readonly LanguageScore[]): string {
  const rows = scores.map((score) => {
    const percent = `${(100 * accuracy(score)).toFixed(1)}%`;
    const taken = score.confusions
      .slice(0, 4)
      .map(([answer, count]) => `${answer} ${count}`)
      .join(', ');
    const name = score.published ? score.language : `${score.language} (not published)`;
    return `| ${name} | ${score.sentences} | ${score.correct} | ${percent} | ${taken || '—'} |`;
  });
  return ['| language | sentences | correct | % | taken for |', '|---|---:|---:|---:|---|', ...rows].join(
    '\n',
  );
}
