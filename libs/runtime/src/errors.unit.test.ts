import { readFileSync } from 'node:fs';

import { describe, expect, it } from '@jest/globals';

import { AppError, ERROR_CATALOGUE } from './errors.js';
import { errorBody, toAppError } from './http.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('the error catalogue', () => {
  it('has unique numeric codes, each its HTTP status times 100 plus a sequence', () => {
    const entries = Object.values(ERROR_CATALOGUE);
    expect(new Set(entries.map((e) => e.code)).size).toBe(entries.length);
    for (const e of entries) expect(Math.floor(e.code / 100)).toBe(e.status);
  });

  it('is listed row for row in docs/errors.md', () => {
    const rows = [...doc.matchAll(/^\| (\d+) \| `([A-Z_]+)` \| (\d+) \|/gm)].map(([, code, name, status]) => [
      name,
      Number(code),
      Number(status),
    ]);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([name, e]) => [name, e.code, e.status]);
    expect(rows).toEqual(catalogue);
  });
});

describe('error bodies', () => {
  const error = new AppError('VALIDATION_FAILED', 'body.text: required', { issues: [{ path: 'body.text' }] });

  it('are the envelope outside /v1', () => {
    expect(errorBody(error, '/api/v1/translate', 'req-1')).toEqual({
      code: 40002,
      error: 'VALIDATION_FAILED',
      message: 'body.text: required',
      details: { issues: [{ path: 'body.text' }] },
      request_id: 'req-1',
    });
  });

  it("are OpenAI's shape under /v1, naming the body field as OpenAI does", () => {
    expect(errorBody(error, '/v1/chat/completions', 'req-1')).toEqual({
      error: {
        message: 'body.text: required',
        type: 'invalid_request_error',
        param: 'text',
        code: 'validation_failed',
      },
    });
    expect(errorBody(new AppError('API_KEY_INVALID', 'bad key'), '/v1/models', 'r')).toMatchObject({
      error: { type: 'authentication_error', param: null, code: 'invalid_api_key' },
    });
    expect(errorBody(new AppError('QUOTA_EXCEEDED', 'spent'), '/v1/models', 'r')).toEqual({
      error: { message: 'spent', type: 'insufficient_quota', param: null, code: 'insufficient_quota' },
    });
  });

  it('map body-parser faults to their 4xx and unknown faults to a bare 500', () => {
    expect(toAppError({ type: 'entity.too.large', status: 413 }).code).toBe('PAYLOAD_TOO_LARGE');
    expect(toAppError({ type: 'request.aborted', status: 400 }).code).toBe('BAD_REQUEST');
    const internal = toAppError(new Error('secret connection string in here'));
    expect(internal.code).toBe('INTERNAL');
    expect(internal.message).toBe('internal error');
  });
});
