import { AppError, requireJson } from '@tp/runtime';
import express, { type RequestHandler } from 'express';
import type { z } from 'zod';

/** One problem of a request, in the gateway's shape: `path` such as `body.candidate_labels.2`. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
  readonly code: string;
}

/** 400 VALIDATION_FAILED listing every issue, so a client fixes its request in one round. */
export function validationFailed(issues: readonly ValidationIssue[]): AppError {
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new AppError('VALIDATION_FAILED', `${first?.path}: ${first?.message}${more}`, { issues });
}

/** Parses a request body with a (strict) zod schema; unknown fields and wrong types are issues too. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw validationFailed(
    result.error.issues.map((issue) => ({
      path: ['body', ...issue.path.map(String)].join('.'),
      message: issue.message,
      code: issue.code,
    })),
  );
}

/**
 * A JSON body (Content-Type application/json) of at most `limitBytes`; a request without a body passes
 * on and fails validation. Parse errors become 400 MALFORMED_JSON and 413 PAYLOAD_TOO_LARGE at the edge.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  return [requireJson, express.json({ limit: limitBytes, strict: true })];
}
