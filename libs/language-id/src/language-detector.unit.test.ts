import { beforeAll, describe, expect, it } from '@jest/globals';

import { openLanguageDetector, type LanguageDetector } from './language-detector.js';

let detector: LanguageDetector;
beforeAll(async () => {
  detector = await openLanguageDetector();
});

describe('language detection', () => {
  it.each([
    ['我们坐出租车去买新的鼠标和软件。', 'zh-CN'],
    ['我們坐計程車去買新的滑鼠和軟體。', 'zh-TW'],
    ['HAL (Hardware Abstraction Layer) で検出されたローカルプリンター', 'ja'],
    ['Caps Lock 키를 추가 Num Lock 키로 사용', 'ko'],
    ['去除輸入資料每行末端的 carriage return 字元。', 'zh-TW'],
    ['Tidak dapat membuat berkas cache direktori untuk pengguna ini', 'id'],
    ['क्या विजेट अधिक क्षैतिज स्थान चाहता है', 'hi'],
    ['Сегодня мы поедем в город, чтобы купить новую книгу.', 'ru'],
    ['لا يمكن إنشاء ملف الذاكرة المؤقتة للدليل', 'ar'],
    ['O vendedor vende vegetais orgânicos frescos todos os dias.', 'pt'],
  ])('detects %j as %s', (text, language) => {
    expect(detector.detect(text).language).toBe(language);
  });

  it('tells zh-CN from zh-TW by the characters only one script writes, with a confidence', () => {
    const { candidates } = detector.detect('软件和鼠标');

    expect(candidates.map((c) => c.language)).toEqual(['zh-CN', 'zh-TW']);
    // Two Simplified-only characters (软, 标), none Traditional-only.
    expect(candidates[0]?.confidence).toBe(0.75);
    const longer = detector.detect('我们坐出租车去买新的鼠标和软件。');
    expect(longer.candidates[0]).toMatchObject({ language: 'zh-CN' });
    expect(longer.candidates[0]?.confidence).toBeGreaterThan(0.85);
  });

  it('reads Chinese written alike in both scripts as zh-CN at even confidence', () => {
    expect(detector.detect('你好')).toEqual({
      language: 'zh-CN',
      candidates: [
        { language: 'zh-CN', confidence: 0.5 },
        { language: 'zh-TW', confidence: 0.5 },
      ],
    });
  });

  it('lists Malay after Indonesian for the Malay-family text the model does not split', () => {
    const { language, candidates } = detector.detect(
      'Tidak dapat membuat berkas cache direktori untuk pengguna ini',
    );

    expect(language).toBe('id');
    expect(candidates.slice(0, 2).map((c) => c.language)).toEqual(['id', 'ms']);
  });

  it('answers candidates best first, with confidences between 0 and 1 that add up to at most 1', () => {
    const { candidates } = detector.detect('Der Bus hat Verspätung, und niemand weiß warum');

    expect(candidates[0]?.language).toBe('de');
    expect(candidates.length).toBeLessThanOrEqual(3);
    const confidences = candidates.map((c) => c.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    expect(confidences.every((c) => c >= 0 && c <= 1)).toBe(true);
    expect(confidences.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1.001);
  });

  it.each([
    ['digits only', '0123456789 42'],
    ['emoji only', '😀😀🎉👍'],
    ['punctuation only', '?!... --- ***'],
  ])('says a text of %s has no letters', (_name, text) => {
    expect(detector.detect(text)).toEqual({ candidates: [], reason: 'no_letters' });
  });

  it('says a few letters are too short to tell, and still lists guesses', () => {
    const detection = detector.detect('Hello');

    expect(detection.reason).toBe('too_short');
    expect(detection.language).toBeUndefined();
  });

  it('says a text split between two non-Latin scripts is mixed', () => {
    const detection = detector.detect('Привет всем друзьям مرحبا بالجميع يا أصدقاء');

    expect(detection).toMatchObject({ reason: 'mixed' });
    expect(detection.language).toBeUndefined();
  });

  it('answers a 50,000-character run of one character from its start', () => {
    expect(detector.detect('软'.repeat(50_000)).language).toBe('zh-CN');
    expect(detector.detect('a'.repeat(50_000)).language).toBeUndefined();
  });
});
