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

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** At most this many `__proto__` keys are named in one answer. */
const MAX_PROTO_ISSUES = 10;

/**
 * The own `__proto__` keys of a parsed JSON body (JSON.parse keeps them as keys). zod leaves such a key
 * out of a record or an object without an issue, so a content field named `__proto__` would be dropped
 * in silence: it is refused instead. The walk has no recursion (any depth), visits each value once
 * and spells out a path only for an issue.
 */
function protoKeyIssues(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Each object or array met, with where it came from: a path is spelled out only for an issue.
  const seen: { readonly node: object; readonly parent: number; readonly key: string }[] = [];
  const pathOf = (at: number, key: string): string => {
    const keys = [key];
    for (let i = at; i > 0; i = seen[i]!.parent) keys.push(seen[i]!.key);
    return ['body', ...keys.reverse()].join('.');
  };
  if (isObject(body)) seen.push({ node: body, parent: 0, key: '' });
  for (let at = 0; at < seen.length; at++) {
    const { node } = seen[at]!;
    if (Array.isArray(node)) {
      node.forEach((value: unknown, i) => {
        if (isObject(value)) seen.push({ node: value, parent: at, key: String(i) });
      });
      continue;
    }
    for (const key of Object.keys(node)) {
      const value: unknown = (node as Record<string, unknown>)[key];
      if (key !== '__proto__') {
        if (isObject(value)) seen.push({ node: value, parent: at, key });
      } else if (issues.length < MAX_PROTO_ISSUES)
        issues.push({
          path: pathOf(at, key),
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
