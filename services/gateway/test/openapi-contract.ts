import { readFileSync } from 'node:fs';

import { Ajv2020 } from 'ajv/dist/2020.js';
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

  /** Throws, with Ajv's errors, unless the status is documented for the operation and the body matches. */
  check(method: string, path: string, status: number, body: unknown): void {
    const operation = this.doc.paths[path]?.[method] as { responses?: Record<string, unknown> } | undefined;
    if (!operation) throw new Error(`${method} ${path} is not in the OpenAPI document`);
    if (!operation.responses?.[String(status)]) {
      throw new Error(`${method} ${path} answered ${status}, which the document does not list`);
    }
    const pointer = [
      'paths',
      path,
      method,
      'responses',
      String(status),
      'content',
      'application/json',
      'schema',
    ]
      .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
      .join('/');
    const validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
    if (!validate(body)) {
      throw new Error(
        `${method} ${path} ${status}: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
      );
    }
    this.checked.push({ operation: `${method} ${path}`, status });
  }
}
