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

/** At most this many `__proto__` keys are named in one answer. */
const MAX_PROTO_ISSUES = 10;

/**
 * The own `__proto__` keys of a parsed JSON body (JSON.parse keeps them as keys). zod leaves such a key
 * out of a record or an object without an issue, so a content field named `__proto__` would be dropped
 * in silence: it is refused instead. The walk has no recursion (any depth) and visits each value once.
 */
function protoKeyIssues(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: [unknown, string][] = [[body, 'body']];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, path] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) stack.push([node[i], `${path}.${i}`]);
      continue;
    }
    for (const key of Object.keys(node)) {
      const value: unknown = (node as Record<string, unknown>)[key];
      if (key !== '__proto__') stack.push([value, `${path}.${key}`]);
      else if (issues.length < MAX_PROTO_ISSUES)
        issues.push({
          path: `${path}.${key}`,
          message: '__proto__ is not accepted as a name',
          code: 'custom',
        });
    }
  }
  return issues;
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
  const protoKeys = schemas?.body ? protoKeyIssues(req.body) : [];
  issues.push(...protoKeys);
  const parsed = {
    params: part('params', schemas?.params, req.params),
    query: part('query', schemas?.query, req.query),
    headers: part('headers', schemas?.headers, req.headers),
    body: protoKeys.length > 0 ? undefined : part('body', schemas?.body, req.body),
  };
  if (issues.length > 0) {
    const first = issues[0] as ValidationIssue;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new AppError('VALIDATION_FAILED', `${first.path}: ${first.message}${more}`, { issues });
  }
  return parsed;
}
