import type { AppError, ErrorCode, ErrorShape } from '@tp/runtime';

const OPENAI_TYPES: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** OpenAI's own codes where ours differ: SDKs and tools match on `invalid_api_key`. */
const OPENAI_CODES: Partial<Record<ErrorCode, string>> = {
  API_KEY_INVALID: 'invalid_api_key',
  API_KEY_MALFORMED: 'invalid_api_key',
  API_KEY_REVOKED: 'invalid_api_key',
  QUOTA_EXCEEDED: 'insufficient_quota',
};

/** OpenAI's own types where the status does not say it: SDKs tell a spent quota from a rate limit. */
const OPENAI_CODE_TYPES: Partial<Record<ErrorCode, string>> = {
  QUOTA_EXCEEDED: 'insufficient_quota',
};

/** The `code` a /v1 answer carries for one of our errors. */
export const openAiCode = (code: ErrorCode): string => OPENAI_CODES[code] ?? code.toLowerCase();

/** `{error: {message, type, param, code}}` as OpenAI's API and SDKs expect. */
export function openAiErrorBody(error: AppError): object {
  const type =
    OPENAI_CODE_TYPES[error.code] ??
    OPENAI_TYPES[error.httpStatus] ??
    (error.httpStatus >= 500 ? 'server_error' : 'invalid_request_error');
  return {
    error: {
      message: error.message,
      type,
      param: firstIssuePath(error.details),
      code: openAiCode(error.code),
    },
  };
}

/**
 * Every failure under /v1/ (the OpenAI-compatible routes, unknown /v1 paths, and what the edge
 * refuses before a route, such as a rate limit) answers in OpenAI's shape.
 */
export const openAiErrorShape: ErrorShape = { prefix: '/v1/', body: openAiErrorBody };

/** OpenAI names the body field itself (`messages`, not `body.messages`). */
function firstIssuePath(details: unknown): string | null {
  const issues = (details as { issues?: { path?: string }[] } | undefined)?.issues;
  const path = issues?.[0]?.path;
  return path === undefined ? null : path.replace(/^body\./, '');
}
