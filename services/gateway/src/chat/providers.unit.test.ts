import { describe, expect, it } from '@jest/globals';
import { AppError } from '@tp/runtime';

import type { Provider } from './chat-config.js';
import { ProviderRegistry } from './providers.js';

const provider = (name: string, models: string[]): Provider => ({
  name,
  baseUrl: `http://${name}.invalid/v1`,
  apiKey: undefined,
  models,
  timeoutMs: 1000,
});

const registry = new ProviderRegistry([provider('a', ['gpt-a']), provider('b', ['gpt-b'])], {
  smart: ['b/gpt-b', 'gpt-a'],
  fast: 'a/gpt-a',
});

const code = (model: string) => {
  try {
    registry.targets(model);
    return undefined;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
};

describe('ProviderRegistry', () => {
  it('resolves an alias, a bare model and provider/model to targets in order', () => {
    const names = (model: string) => registry.targets(model).map((t) => `${t.provider.name}/${t.model}`);
    expect(names('smart')).toEqual(['b/gpt-b', 'a/gpt-a']);
    expect(names('fast')).toEqual(['a/gpt-a']);
    expect(names('gpt-b')).toEqual(['b/gpt-b']);
    expect(names('a/gpt-a')).toEqual(['a/gpt-a']);
  });

  it('answers MODEL_NOT_FOUND for a model named like a property every object has', () => {
    // The aliases are a parsed JSON object: its prototype's names are no aliases of the operator's.
    for (const model of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect({ model, code: code(model) }).toEqual({ model, code: 'MODEL_NOT_FOUND' });
    }
  });

  it('lists the providers’ models, then the aliases', () => {
    expect(registry.models().map((m) => m.id)).toEqual(['gpt-a', 'gpt-b', 'smart', 'fast']);
  });
});
