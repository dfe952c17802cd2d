/**
 * A topic the tiny NLI model recognises, and the words that name it. Words are lower case and contain
 * no punctuation (the BERT pre-tokenizer splits there), or are one CJK character (the BERT normalizer
 * makes each its own token).
 */
export interface Concept {
  readonly name: string;
  readonly words: readonly string[];
  /**
   * A safe concept is not looked up in the premise: a premise is about it exactly when it names no
   * unsafe concept. So "I like tea" entails "This example is safe content."
   */
  readonly safe?: boolean;
}

/**
 * The single source of truth of what the tiny model "understands" (docs/models.md). It covers the
 * default candidate labels of the nli_config row (violence, hate speech, sexual content, harassment,
 * self-harm, safe content) plus spam. "self-harm" reaches the model as `self` `-` `harm`, so `harm`
 * names it.
 */
export const CONCEPTS: readonly Concept[] = [
  {
    name: 'violence',
    words: [
      'violence',
      'violent',
      'kill',
      'killed',
      'murder',
      'weapon',
      'weapons',
      'gun',
      'bomb',
      'attack',
      '杀',
      '枪',
    ],
  },
  { name: 'hate', words: ['hate', 'hateful', 'racist', 'racism', '恨'] },
  { name: 'sexual', words: ['sexual', 'sex', 'nude', 'porn'] },
  { name: 'harassment', words: ['harassment', 'harass', 'bully', 'bullying', 'stalk'] },
  { name: 'self-harm', words: ['harm', 'suicide'] },
  { name: 'spam', words: ['spam', 'click', 'discount', 'lottery'] },
  { name: 'safe', words: ['safe'], safe: true },
];

/**
 * Words in the vocabulary that name no concept, so the default template and labels tokenize into
 * real tokens rather than [UNK]. Any other word is [UNK]; neither kind changes the logits.
 */
export const FILLER_WORDS: readonly string[] = [
  'this',
  'example',
  'is',
  'about',
  'content',
  'speech',
  'self',
  'text',
  'a',
  'the',
  'i',
  'you',
  'we',
  'will',
  'and',
  'like',
  'tea',
  '-',
  '.',
  ',',
  '!',
  '?',
];
