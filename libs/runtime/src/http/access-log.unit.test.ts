import { describe, expect, it, jest } from '@jest/globals';
import { pino, type LoggerOptions } from 'pino';

import { accessLogWriter, type AccessLevel, type AccessLine } from './access-log.js';

/** A logger configured as createLogger's (fixed time, a mixin), writing into an array. */
function capture(options: LoggerOptions = {}, mixin: () => Record<string, unknown> = () => ({})) {
  const lines: string[] = [];
  const logger = pino(
    {
      level: 'info',
      base: { service: 'gateway' },
      mixin,
      timestamp: () => ',"time":"2026-11-25T10:00:00.000Z"',
      formatters: { level: (label) => ({ level: label }) },
      ...options,
    },
    { write: (line: string) => lines.push(line) },
  );
  return { logger, lines };
}

const line = (overrides: Partial<AccessLine> = {}): AccessLine => ({
  req_id: '3b1f0c5e-9d2a-4e1b-8c7d-6a5b4c3d2e1f',
  correlation_id: 'caller.id:1',
  method: 'POST',
  url: '/api/v1/translate',
  remote: '127.0.0.1',
  status: 200,
  ms: 0.4,
  ...overrides,
});

/** What pino writes for the same call, and what the writer writes. */
function both(level: AccessLevel, fields: AccessLine, msg: string, setup = () => capture()) {
  const byPino = setup();
  byPino.logger[level](fields, msg);
  const byWriter = setup();
  accessLogWriter(byWriter.logger)(level, fields, msg);
  return { pino: byPino.lines, writer: byWriter.lines };
}

describe('accessLogWriter', () => {
  it.each([
    ['a completed request', 'info' as const, line(), 'request completed'],
    ['a failed one', 'error' as const, line({ status: 503, ms: 59.4 }), 'request failed'],
    ['an aborted one', 'warn' as const, line({ status: 200, ms: 12 }), 'request aborted'],
    ['no client address', 'info' as const, line({ remote: undefined }), 'request completed'],
    [
      'a URL with quotes, backslashes, control and non-ASCII characters',
      'info' as const,
      line({ url: '/a"b\\c\u0001d/é?q=\u2028' + 'x'.repeat(60) }),
      'request completed',
    ],
  ])('writes what pino writes for %s', (_name, level, fields, msg) => {
    const { pino: expected, writer } = both(level, fields, msg);
    expect(expected).toHaveLength(1);
    expect(writer).toEqual(expected);
  });

  it("writes the mixin's trace ids where pino writes them", () => {
    const ids = () => ({ trace_id: 'ab'.repeat(16), span_id: 'cd'.repeat(8) });
    const { pino: expected, writer } = both('info', line(), 'request completed', () => capture({}, ids));
    expect(writer).toEqual(expected);
    expect(JSON.parse(writer[0] ?? '')).toMatchObject({ trace_id: 'ab'.repeat(16), req_id: line().req_id });
  });

  it("builds the line itself for the tracker's logger (a child without redaction of a redacting one)", () => {
    const setup = () => {
      const root = capture({
        redact: { paths: ['req.headers.authorization', '*.password'], censor: '[redacted]' },
      });
      return { logger: root.logger.child({}, { redact: [] }), lines: root.lines };
    };
    const { pino: expected, writer } = both('info', line(), 'request completed', setup);
    expect(writer).toEqual(expected);
    const { logger } = setup();
    const viaPino = jest.spyOn(logger, 'info');
    accessLogWriter(logger)('info', line(), 'request completed');
    expect(viaPino).not.toHaveBeenCalled();
  });

  it('writes nothing below the logger level', () => {
    const { pino: expected, writer } = both('info', line(), 'request completed', () =>
      capture({ level: 'warn' }),
    );
    expect([expected, writer]).toEqual([[], []]);
  });

  it('leaves a logger that would change the line to pino (redaction of a field, a mixin field of the line)', () => {
    const redacted = both('info', line(), 'request completed', () => capture({ redact: ['url'] }));
    expect(redacted.writer).toEqual(redacted.pino);
    expect(redacted.writer[0]).toContain('"url":"[Redacted]"');
    const clash = both('info', line(), 'request completed', () => capture({}, () => ({ status: 'x' })));
    expect(clash.writer).toEqual(clash.pino);
  });
});
