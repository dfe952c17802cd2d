import { describe, expect, it } from '@jest/globals';

import { loadTranslatorConfig } from './config.js';
import { pairRemedies } from './engines-from-config.js';

describe('pairRemedies: what would make an unserved pair work in this deployment', () => {
  it('offers every engine setting not used yet and the offline model of the pair, by its Opus-MT codes', () => {
    const remedies = pairRemedies(loadTranslatorConfig({}));
    expect(remedies('zh-CN', 'en')).toEqual([
      'set PRIMARY_ENGINE=deepl|google with its key (PRIMARY_ENGINE_KEY)',
      'set LIBRETRANSLATE_URL to a LibreTranslate instance',
      'set MYMEMORY_URL=https://api.mymemory.translated.net (a free online service; texts go to it)',
      'run `npm run models:pull -- zh-en` (an offline Opus-MT model, where one exists; needs internet)',
    ]);
  });

  it('leaves out what is configured already, and offers the other primary engine', () => {
    const remedies = pairRemedies(
      loadTranslatorConfig({
        PRIMARY_ENGINE: 'deepl',
        PRIMARY_ENGINE_KEY: 'k',
        LIBRETRANSLATE_URL: 'http://127.0.0.1:5000',
        MYMEMORY_URL: 'https://api.mymemory.translated.net',
      }),
    );
    expect(remedies('en', 'ko')).toEqual([
      'set PRIMARY_ENGINE=google with a Google key (PRIMARY_ENGINE_KEY)',
      'run `npm run models:pull -- en-ko` (an offline Opus-MT model, where one exists; needs internet)',
    ]);
  });

  it('offers no model for `auto` or for two variants of one language', () => {
    const remedies = pairRemedies(
      loadTranslatorConfig({ PRIMARY_ENGINE: 'google', PRIMARY_ENGINE_KEY: 'k' }),
    );
    expect(remedies('auto', 'en').some((remedy) => remedy.includes('models:pull'))).toBe(false);
    expect(remedies('zh-CN', 'zh-TW').some((remedy) => remedy.includes('models:pull'))).toBe(false);
    expect(remedies('zh-CN', 'zh-TW')[0]).toBe(
      'set PRIMARY_ENGINE=deepl with a DeepL key (PRIMARY_ENGINE_KEY)',
    );
  });
});
