import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';

import { ConfigError, configLoader, env, parseEnv, redactUrl, splitTuning } from './config.js';

const schema = z.object({
  PORT: env.port(3000),
  DATABASE_URL: env.url(['postgres'], 'postgres://localhost/db'),
  KAFKA_BROKERS: env.brokers('127.0.0.1:9092'),
  ENABLED: env.bool(true),
});

describe('parseEnv', () => {
  it('applies defaults and converts types', () => {
    expect(parseEnv(schema, {})).toEqual({
      PORT: 3000,
      DATABASE_URL: 'postgres://localhost/db',
      KAFKA_BROKERS: ['127.0.0.1:9092'],
      ENABLED: true,
    });
  });

  it('names the setting and the bad value of a malformed port', () => {
    expect(() => parseEnv(schema, { PORT: 'abc' })).toThrow(
      new ConfigError('PORT', 'must be a TCP port number (got "abc")'),
    );
  });

  it('rejects a port out of range', () => {
    expect(() => parseEnv(schema, { PORT: '70000' })).toThrow(/^PORT: must be an integer from 1 to 65535/);
  });

  it('rejects a URL with the wrong scheme and hides its password', () => {
    expect(() => parseEnv(schema, { DATABASE_URL: 'mysql://u:secret@h/db' })).toThrow(
      'DATABASE_URL: must be a URL with scheme postgres (got "mysql://u:***@h/db")',
    );
  });

  it('rejects brokers without a port', () => {
    expect(() => parseEnv(schema, { KAFKA_BROKERS: 'kafka' })).toThrow(
      /^KAFKA_BROKERS: must be a comma-separated list/,
    );
  });

  it('lists every other invalid setting after the first', () => {
    expect(() => parseEnv(schema, { PORT: 'x', ENABLED: 'maybe' })).toThrow(/also invalid: ENABLED$/);
  });
});

describe('configLoader', () => {
  const load = configLoader(z.object({ PORT: env.port(3000) }), { RETRY_MS: 1000 });

  it('adds the named constants to the settings, shortened in-process when a test asks', () => {
    expect(load({ PORT: '8080' })).toEqual({ PORT: 8080, RETRY_MS: 1000 });
    expect(load({}, { RETRY_MS: 10 })).toEqual({ PORT: 3000, RETRY_MS: 10 });
  });

  it('refuses a constant set in the environment, naming it', () => {
    expect(() => load({ RETRY_MS: '10' })).toThrow(ConfigError);
    expect(() => load({ RETRY_MS: '10' })).toThrow(
      'RETRY_MS: is a named constant (1000), not a setting: remove it from the environment',
    );
  });

  it("takes the constants out of a test's settings with splitTuning", () => {
    const { tuning, env: rest } = splitTuning({ RETRY_MS: 1000 }, { RETRY_MS: '10', PORT: '8080' });
    expect(load(rest, tuning)).toEqual({ PORT: 8080, RETRY_MS: 10 });
  });
});

describe('redactUrl', () => {
  it('masks only the password', () => {
    expect(redactUrl('postgres://user:pw@host:5432/db')).toBe('postgres://user:***@host:5432/db');
    expect(redactUrl('not a url')).toBe('not a url');
  });

  it('never repeats the value of a secret setting in its error', () => {
    const schema = z.object({ PRIMARY_ENGINE_KEY: z.string().min(40), API_TOKEN: z.string().min(40) });
    const error = (() => {
      try {
        parseEnv(schema, { PRIMARY_ENGINE_KEY: 'sk-very-secret', API_TOKEN: 'tok-secret' });
      } catch (err) {
        return err as Error;
      }
      return undefined;
    })();
    expect(error?.message).toContain('PRIMARY_ENGINE_KEY');
    expect(error?.message).toContain('14 characters, not shown');
    expect(error?.message).not.toContain('sk-very-secret');
  });
});
