import { AppError, ERROR_CATALOGUE, routeLabel, type ErrorCode } from '@tp/runtime';
import type { Express } from 'express';
import swaggerUi from 'swagger-ui-express';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';

import type { AnyRoute } from './route.js';

const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

export const errorEnvelopeSchema = z
  .object({
    code: z.int().positive().meta({ description: 'Stable numeric error code (docs/errors.md).' }),
    error: z.enum(ERROR_CODES).meta({ description: 'Stable error name.' }),
    message: z.string(),
    details: z.unknown().optional(),
    request_id: z.string().meta({ description: 'Also sent as the x-request-id header.' }),
  })
  .meta({ id: 'Error', description: 'Every failure outside /v1 has this shape.' });

export const openAiErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
    }),
  })
  .meta({ id: 'OpenAIError', description: 'Failures of the OpenAI-compatible /v1 routes.' });

/** The failures every route of this kind can answer with, beside its own `errors`. */
function impliedErrors(route: AnyRoute): ErrorCode[] {
  // A key is checked on every route: a public one answers anonymously only without `Authorization`.
  const codes: ErrorCode[] = [
    'RATE_LIMITED',
    'INTERNAL',
    'API_KEY_MALFORMED',
    'API_KEY_INVALID',
    'API_KEY_REVOKED',
    'DEPENDENCY_UNAVAILABLE',
  ];
  if (route.access !== 'public') codes.push('API_KEY_MISSING');
  if (route.access === 'admin') codes.push('FORBIDDEN');
  if (route.request) codes.push('VALIDATION_FAILED');
  if (route.request?.body)
    codes.push('MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'BAD_REQUEST');
  return codes;
}

function operation(route: AnyRoute): ZodOpenApiOperationObject {
  const envelope = (route.envelope ?? true) && !route.wire;
  const errorSchema = route.wire?.errors.schema ?? (envelope ? errorEnvelopeSchema : openAiErrorSchema);
  const statusOf = (code: ErrorCode) =>
    route.wire ? route.wire.errors.status(new AppError(code, code)) : ERROR_CATALOGUE[code].status;
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of new Set([...impliedErrors(route), ...(route.errors ?? [])])) {
    const status = statusOf(code);
    byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  }
  const failures = Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      String(status),
      {
        description: [...codes].join(', '),
        content: { 'application/json': { schema: errorSchema } },
        ...(status === 429 ? { headers: z.object({ 'retry-after': z.string() }) } : {}),
      },
    ]),
  );
  const success = envelope
    ? z.object({ code: z.literal(0), data: route.response.schema })
    : route.response.schema;
  const { params, query, headers, body } = route.request ?? {};
  const scheme = route.wire?.security ?? 'bearerAuth';
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [...route.tags],
    'x-access': route.access,
    // Public: anonymous (`{}`) or with a key, which is then checked and counted as on keyed routes.
    security: route.access === 'public' ? [{}, { [scheme]: [] }] : [{ [scheme]: [] }],
    requestParams: {
      ...(params ? { path: params } : {}),
      ...(query ? { query } : {}),
      ...(headers ? { header: headers } : {}),
    },
    ...(body ? { requestBody: { required: true, content: bodyContent(route, body) } } : {}),
    responses: {
      [String(route.response.status)]: {
        description: route.response.description,
        ...(route.response.headers ? { headers: route.response.headers } : {}),
        ...successContent(route, success),
      },
      ...failures,
    },
  };
}

const bodyContent = (route: AnyRoute, body: z.ZodType) => ({
  'application/json': { schema: body },
  ...(route.wire?.forms ? { 'application/x-www-form-urlencoded': { schema: body } } : {}),
  ...(route.wire?.multipart ? { 'multipart/form-data': { schema: body } } : {}),
});

function successContent(route: AnyRoute, success: z.ZodType) {
  if (route.response.status === 204) return {};
  return {
    content: {
      [route.response.contentType ?? 'application/json']: { schema: success },
      ...(route.response.eventStream
        ? { 'text/event-stream': { schema: z.string().meta({ description: route.response.eventStream }) } }
        : {}),
    },
  };
}

export type OpenApiDocument = ReturnType<typeof createDocument>;

/**
 * The reviewed copy of the served document, services/gateway/openapi.json (written by
 * `npm run openapi:write`; the same path from src/http and dist/http).
 */
export const COMMITTED_OPENAPI = new URL('../../openapi.json', import.meta.url);

/** The committed file's text for a document: two-space JSON and a final newline. */
export const openApiFileText = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

export function buildOpenApiDocument(routes: readonly AnyRoute[], version: string): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Translation platform gateway',
      version,
      description:
        'Public edge of the translation and classification platform. Successful answers are `{code: 0, data}`; failures carry a stable `code` and `error` (see docs/errors.md). Routes under /v1 follow the OpenAI API shapes.',
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `Authorization: Bearer tp_...`',
        },
        deeplAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'The DeepL-compatible /v2 routes: `Authorization: DeepL-Auth-Key tp_...` (or `Bearer`, or the legacy `auth_key` form field).',
        },
      },
    },
    paths,
  });
}

/** GET /openapi.json and the Swagger UI at /docs (its assets ship in the npm package: no CDN). */
export function serveOpenApi(app: Express, document: object): void {
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use(
    '/docs',
    routeLabel('/docs'),
    swaggerUi.serve,
    swaggerUi.setup(document, { customSiteTitle: 'Gateway API' }),
  );
}
