import { describe, expect, it } from '@jest/globals';

import { planRoute } from './route.js';

const zhEn = { source: 'zh-CN', target: 'en' };
const enDe = { source: 'en', target: 'de' };
const zhDe = { source: 'zh-CN', target: 'de' };

describe('planRoute', () => {
  it('uses the direct model when one is installed', () => {
    expect(planRoute([zhEn, enDe, zhDe], 'zh-CN', 'de')).toEqual([zhDe]);
  });

  it('pivots through English when only source -> en and en -> target exist', () => {
    expect(planRoute([enDe, zhEn], 'zh-CN', 'de')).toEqual([zhEn, enDe]);
  });

  it('compares language codes case-insensitively', () => {
    expect(planRoute([zhEn], 'zh-cn', 'EN')).toEqual([zhEn]);
  });

  it('gives undefined when a pivot leg is missing', () => {
    expect(planRoute([zhEn], 'zh-CN', 'de')).toBeUndefined();
    expect(planRoute([enDe], 'zh-CN', 'de')).toBeUndefined();
  });

  it('does not pivot a request from or to English itself', () => {
    expect(planRoute([zhEn], 'en', 'zh-CN')).toBeUndefined();
  });

  it('gives undefined for a same-language request', () => {
    expect(planRoute([zhEn], 'en', 'en')).toBeUndefined();
  });
});
