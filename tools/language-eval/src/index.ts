export { buildCorpus, englishSentences, type Corpus, type CorpusEntry } from './corpus/build-corpus.js';
