import { describe, expect, it } from '@jest/globals';

import { AppError } from '../errors.js';
import { errorBody, toAppError, type ErrorShape } from './errors.js';

describe('error bodies', () => {
  const error = new AppError('VALIDATION_FAILED', 'body.text: required', { issues: [{ path: 'body.text' }] });
  const envelope = {
    code: 40002,
    error: 'VALIDATION_FAILED',
    message: 'body.text: required',
    details: { issues: [{ path: 'body.text' }] },
    request_id: 'req-1',
  };

  it('are the envelope when no shape is given', () => {
    expect(errorBody(error, '/api/v1/translate', 'req-1')).toEqual(envelope);
  });

  it("are a shape's body under its prefix, and the envelope elsewhere", () => {
    const shapes: ErrorShape[] = [{ prefix: '/v1/', body: (e) => ({ failed: e.code }) }];
    expect(errorBody(error, '/v1/chat/completions', 'req-1', shapes)).toEqual({
      failed: 'VALIDATION_FAILED',
    });
    expect(errorBody(error, '/api/v1/translate', 'req-1', shapes)).toEqual(envelope);
    expect(errorBody(error, '/v1', 'req-1', shapes)).toEqual(envelope);
  });

  it('map body-parser faults to their 4xx and unknown faults to a bare 500', () => {
    expect(toAppError({ type: 'entity.too.large', status: 413 }).code).toBe('PAYLOAD_TOO_LARGE');
    expect(toAppError({ type: 'request.aborted', status: 400 }).code).toBe('BAD_REQUEST');
    const internal = toAppError(new Error('secret connection string in here'));
    expect(internal.code).toBe('INTERNAL');
    expect(internal.message).toBe('internal error');
  });
});
