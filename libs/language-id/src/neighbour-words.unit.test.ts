import { beforeAll, describe, expect, it } from '@jest/globals';

import { openLanguageDetector, type LanguageDetector } from './language-detector.js';
import { loadNeighbourWords, wordEvidence, type NeighbourWords } from './neighbour-words.js';

let words: NeighbourWords;
let detector: LanguageDetector;
beforeAll(async () => {
  words = loadNeighbourWords();
  detector = await openLanguageDetector();
});

describe('the words of Portuguese and Spanish', () => {
  it('favour Portuguese for Portuguese words and Spanish for Spanish ones', () => {
    expect(wordEvidence(words, 'Mostrar pacotes instalados', 'pt', 'es')).toBeGreaterThan(1);
    expect(wordEvidence(words, 'Borrar fichero temporal del usuario', 'pt', 'es')).toBeLessThan(-1);
  });

  it('weigh the same evidence for either order of the pair', () => {
    const text = 'Tamanho do ficheiro e nome da pasta';

    expect(wordEvidence(words, text, 'es', 'pt')).toBeCloseTo(-(wordEvidence(words, text, 'pt', 'es') ?? 0));
  });

  it('say nothing about another pair of languages', () => {
    expect(wordEvidence(words, 'le fichier est introuvable', 'fr', 'en')).toBeUndefined();
    expect(wordEvidence(words, 'o ficheiro', 'pt', 'pt')).toBeUndefined();
  });

  it('raise the confidence of a short Portuguese string eld finds close to Spanish', () => {
    // eld alone: pt 0.61, es 0.39 (a shared n-gram profile); "pacotes" is Portuguese only.
    const { language, candidates } = detector.detect('Mostrar pacotes instalados');

    expect(language).toBe('pt');
    expect(candidates[0]?.confidence).toBeGreaterThan(0.9);
  });
});
