import { readFile } from 'node:fs/promises';

import { describe, expect, it } from '@jest/globals';

import { configurationDoc } from './configuration-doc.js';
import { serviceSettings, toolSettings } from './settings-sources.js';

// docs/configuration.md is written from the services' typed settings by `npm run config:docs`: a
// setting added, removed, given another default or meaning without running it fails here.
describe('docs/configuration.md', () => {
  it('is what npm run config:docs writes from the settings of every program', async () => {
    const committed = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(committed).toBe(configurationDoc(serviceSettings, toolSettings));
  });

  it('keeps the settings a second stack needs beside the first', () => {
    const names = new Set(
      [...serviceSettings, ...toolSettings].flatMap((source) => Object.keys(source.shape)),
    );
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'KAFKA_BROKERS',
      'KAFKA_TOPIC_PREFIX',
      'REDIS_KEY_PREFIX',
      'PORT',
      'HOST',
      'GATEWAY_PORT',
      'TRANSLATOR_PORT',
      'NLI_PORT',
      'WORKER_PORT',
      'APERTIUM_URL',
      'APERTIUM_PORT',
    ]) {
      expect(names).toContain(name);
    }
  });
});
