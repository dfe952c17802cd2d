import { readFileSync } from 'node:fs';
import { parse as parseForm } from 'node:querystring';

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { COMMITTED_OPENAPI } from '../src/http/openapi.js';
import type { OpenApiDoc } from './gateway-fixture.js';

/**
 * The committed, reviewed document (services/gateway/openapi.json, `npm run openapi:write`): the
 * oracle of the contract and fuzz tests, independent of what the running gateway generates.
 */
export function committedOpenApi(): OpenApiDoc {
  return JSON.parse(readFileSync(COMMITTED_OPENAPI, 'utf8')) as OpenApiDoc;
}

/** A request as a raw client sends it. */
export interface RawRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

/** A documented operation a request names: its method, its template and the decoded path parameters. */
export interface Matched {
  readonly method: string;
  readonly template: string;
  readonly params: Readonly<Record<string, string>>;
}

interface Parameter {
  readonly in: 'path' | 'query' | 'header';
  readonly name: string;
  readonly required?: boolean;
}

const pointerOf = (parts: readonly string[]) =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export interface Checked {
  readonly operation: string;
  readonly status: number;
}

/** Validates real responses against the response schemas of an OpenAPI document (the committed one). */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly checked: Checked[] = [];

  constructor(private readonly doc: OpenApiDoc) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ ...doc, $id: 'openapi.json' });
  }

  /**
   * Throws, with Ajv's errors, unless the status is documented for the operation and the body (of
   * `mediaType`; none for a 204) matches.
   */
  check(method: string, path: string, status: number, body: unknown, mediaType = 'application/json'): void {
    const operation = this.doc.paths[path]?.[method] as { responses?: Record<string, unknown> } | undefined;
    if (!operation) throw new Error(`${method} ${path} is not in the OpenAPI document`);
    if (!operation.responses?.[String(status)]) {
      throw new Error(`${method} ${path} answered ${status}, which the document does not list`);
    }
    if (status === 204) {
      this.checked.push({ operation: `${method} ${path}`, status });
      return;
    }
    const validate = this.schemaAt([
      'paths',
      path,
      method,
      'responses',
      String(status),
      'content',
      mediaType,
      'schema',
    ]);
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} ${status}: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
      );
    }
    this.checked.push({ operation: `${method} ${path}`, status });
  }

  private readonly compiled = new Map<string, ValidateFunction>();

  /** The validator of the schema at a place in the document (compiled once). */
  private schemaAt(parts: readonly string[]): ValidateFunction {
    const pointer = pointerOf(parts);
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** The documented operation of a method and a path as sent; undefined when none, or when a parameter is not decodable. */
  operationOf(method: string, path: string): Matched | undefined {
    const { pathname } = new URL(path, 'http://x');
    for (const [template, ops] of Object.entries(this.doc.paths)) {
      if (!ops[method.toLowerCase()]) continue;
      // Express's routing is not strict: `/path/` is served by the route of `/path`.
      const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}/?$`);
      const found = pattern.exec(pathname);
      if (!found) continue;
      try {
        const params = Object.fromEntries(
          Object.entries(found.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]),
        );
        return { method: method.toLowerCase(), template, params };
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /**
   * True when the document says the request is valid: a documented operation, the key its access level
   * asks for (`keys`: the test's keys by role), every parameter and the JSON body matching their schemas,
   * and, on an operation that lists query parameters, no other. What the document says, not what the
   * gateway did.
   */
  isValid(request: RawRequest, keys: { readonly client: string; readonly admin: string }): boolean {
    const matched = this.operationOf(request.method, request.path);
    if (!matched) return false;
    const op = this.doc.paths[matched.template]?.[matched.method] as {
      'x-access': string;
      parameters?: Parameter[];
      requestBody?: unknown;
    };
    // The DeepL-compatible routes also take `DeepL-Auth-Key <key>` (deeplAuth).
    const token = /^(?:bearer|deepl-auth-key) +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
    const role = token === keys.admin ? 'admin' : token === keys.client ? 'client' : undefined;
    if (op['x-access'] !== 'public' && role === undefined) return false;
    if (op['x-access'] === 'admin' && role !== 'admin') return false;
    const query = new URL(request.path, 'http://x').searchParams;
    const parameters = op.parameters ?? [];
    const listed = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
    // A route that reads a query reads it strictly (route.ts); one that reads none ignores it.
    if (listed.size > 0 && [...query.keys()].some((name) => !listed.has(name))) return false;
    const base = ['paths', matched.template, matched.method];
    for (const [i, parameter] of parameters.entries()) {
      const value =
        parameter.in === 'path'
          ? matched.params[parameter.name]
          : parameter.in === 'query'
            ? (query.get(parameter.name) ?? undefined)
            : request.headers[parameter.name.toLowerCase()];
      if (value === undefined) {
        if (parameter.required) return false;
        continue;
      }
      if (!this.schemaAt([...base, 'parameters', String(i), 'schema'])(value)) return false;
    }
    if (!op.requestBody) return true;
    return this.validBody(request, base, op.requestBody as { content: Record<string, unknown> });
  }

  /** A JSON body, or a form where the operation takes one (a repeated field is a list, as Express reads it). */
  private validBody(
    request: RawRequest,
    base: readonly string[],
    requestBody: { content: Record<string, unknown> },
  ): boolean {
    const type = request.headers['content-type'] ?? '';
    const form = 'application/x-www-form-urlencoded';
    try {
      if (/^application\/json(\s*;\s*charset=utf-8)?$/i.test(type)) {
        return this.schemaAt([...base, 'requestBody', 'content', 'application/json', 'schema'])(
          JSON.parse(request.body ?? ''),
        );
      }
      if (type.toLowerCase() === form && requestBody.content[form] && request.body) {
        return this.schemaAt([...base, 'requestBody', 'content', form, 'schema'])({
          ...parseForm(request.body),
        });
      }
      return false;
    } catch {
      return false;
    }
  }
}
