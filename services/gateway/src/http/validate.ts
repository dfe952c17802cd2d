import { AppError } from '@tp/runtime';
import type { Request } from 'express';
import type { z } from 'zod';

import type { RequestSchemas } from './route.js';

export interface ValidationIssue {
  /** Where: `body.text`, `query.limit`, `params.id`, `headers.x-language`. */
  readonly path: string;
  readonly message: string;
  readonly code: string;
}

export interface ParsedRequest {
  readonly params: unknown;
  readonly query: unknown;
  readonly headers: unknown;
  readonly body: unknown;
}

/** Validates every part of a request at once, so a client sees all its mistakes in one answer. */
export function parseRequest(schemas: RequestSchemas | undefined, req: Request): ParsedRequest {
  const issues: ValidationIssue[] = [];
  const part = (where: string, schema: z.ZodType | undefined, value: unknown): unknown => {
    if (!schema) return undefined;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      issues.push({
        path: [where, ...issue.path.map(String)].join('.'),
        message: issue.message,
        code: issue.code,
      });
    }
    return undefined;
  };
  const parsed = {
    params: part('params', schemas?.params, req.params),
    query: part('query', schemas?.query, req.query),
    headers: part('headers', schemas?.headers, req.headers),
    body: part('body', schemas?.body, req.body),
  };
  if (issues.length > 0) {
    const first = issues[0] as ValidationIssue;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new AppError('VALIDATION_FAILED', `${first.path}: ${first.message}${more}`, { issues });
  }
  return parsed;
}
