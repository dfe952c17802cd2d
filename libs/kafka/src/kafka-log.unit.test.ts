import { describe, expect, it } from '@jest/globals';
import { logLevel } from 'kafkajs';

import { kafkaLogLevel } from './kafka-client.js';

describe('kafkajs log levels', () => {
  it('logs a protocol error that kafkajs retries as a warning', () => {
    const loading = "The coordinator is loading and hence can't process requests for this group";
    expect(kafkaLogLevel(logLevel.ERROR, loading)).toBe('warn');
  });

  it('keeps other errors at error level', () => {
    expect(
      kafkaLogLevel(logLevel.ERROR, 'Not authorized to access topics: [Topic authorization failed]'),
    ).toBe('error');
    expect(kafkaLogLevel(logLevel.ERROR, undefined)).toBe('error');
  });

  it('maps the other levels as they are', () => {
    expect(kafkaLogLevel(logLevel.WARN, undefined)).toBe('warn');
    expect(kafkaLogLevel(logLevel.INFO, undefined)).toBe('info');
  });
});
