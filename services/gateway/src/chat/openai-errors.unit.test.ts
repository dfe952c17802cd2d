import { describe, expect, it } from '@jest/globals';
import { AppError, errorBody } from '@tp/runtime';

import { openAiErrorShape } from './openai-errors.js';

describe('errors under /v1', () => {
  const error = new AppError('VALIDATION_FAILED', 'body.text: required', { issues: [{ path: 'body.text' }] });
  const body = (e: AppError, path: string) => errorBody(e, path, 'req-1', [openAiErrorShape]);

  it("are OpenAI's shape, naming the body field as OpenAI does", () => {
    expect(body(error, '/v1/chat/completions')).toEqual({
      error: {
        message: 'body.text: required',
        type: 'invalid_request_error',
        param: 'text',
        code: 'validation_failed',
      },
    });
    expect(body(new AppError('API_KEY_INVALID', 'bad key'), '/v1/models')).toMatchObject({
      error: { type: 'authentication_error', param: null, code: 'invalid_api_key' },
    });
    expect(body(new AppError('QUOTA_EXCEEDED', 'spent'), '/v1/models')).toEqual({
      error: { message: 'spent', type: 'insufficient_quota', param: null, code: 'insufficient_quota' },
    });
  });

  it('leave the envelope to the routes outside /v1', () => {
    expect(body(error, '/api/v1/translate')).toMatchObject({ code: 40002, error: 'VALIDATION_FAILED' });
  });
});
