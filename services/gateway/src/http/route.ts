import type { AppError, ErrorCode } from '@tp/runtime';
import type { Request, Response } from 'express';
import type { z } from 'zod';

import type { Principal } from '../auth/api-key.store.js';
import type { Access } from '../auth/authenticate.js';

/** Schemas of what a route reads. Bodies and queries should be strict objects: unknown fields are errors. */
export interface RequestSchemas {
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** Header names in lower case. */
  readonly headers?: z.ZodObject;
  readonly body?: z.ZodType;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteContext<R extends RequestSchemas> {
  readonly params: Parsed<R['params']>;
  readonly query: Parsed<R['query']>;
  readonly headers: Parsed<R['headers']>;
  readonly body: Parsed<R['body']>;
  /** The caller's key: always on keyed routes; on public ones when the request carried a valid key. */
  readonly principal: Principal | undefined;
  /** Aborted when the client goes away before the answer is sent. */
  readonly signal: AbortSignal;
  readonly req: Request;
  readonly res: Response;
}

/**
 * How a route that speaks another API's wire format (DeepL's /v2, LibreTranslate's) reads bodies and
 * keys and answers failures. Its body (form or JSON) is read before its key, which may be in it.
 */
export interface WireFormat {
  /** Also read `application/x-www-form-urlencoded` bodies; a repeated field becomes a list. */
  readonly forms?: boolean;
  /** Also read `multipart/form-data` bodies of text fields (a browser's FormData); a file part is 400. */
  readonly multipart?: boolean;
  /** The API key where that API carries it, handed to the usual auth as `Authorization: Bearer`. */
  readonly credential?: (req: Request) => string | undefined;
  /** The OpenAPI security scheme naming where the key goes (default bearerAuth). */
  readonly security?: 'deeplAuth';
  /** That API's error body and statuses, for the document (the service's ErrorShape answers them). */
  readonly errors: {
    readonly schema: z.ZodType;
    readonly status: (error: AppError) => number;
  };
}

/**
 * One HTTP route: the single source for its Express handler, its validation, its auth and its
 * OpenAPI entry, so the served document cannot drift from what the gateway does.
 */
export interface Route<R extends RequestSchemas = RequestSchemas, S extends z.ZodType = z.ZodType> {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path, e.g. `/api/admin/keys/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly access: Access;
  readonly request?: R;
  readonly response: {
    /** 204 answers no body (the handler's result is ignored). */
    readonly status: 200 | 201 | 202 | 204;
    /** The success content type when not JSON (the handler then writes the answer itself). */
    readonly contentType?: string;
    readonly description: string;
    /** Schema of `data` in `{code: 0, data}`; of the whole body when `envelope` is false. */
    readonly schema: S;
    /** The route may also answer `text/event-stream` (described here) when the request asks for it. */
    readonly eventStream?: string;
    /** Headers of the success answer (lower-case names), for the document; the handler sets them on `res`. */
    readonly headers?: z.ZodObject;
  };
  /** False for routes that answer in someone else's shape (the OpenAI-compatible /v1 routes). */
  readonly envelope?: boolean;
  /** For routes in another API's wire format (DeepL, LibreTranslate); implies no envelope. */
  readonly wire?: WireFormat;
  /** Failures this route adds to the ones implied by its access and request (auth, validation...). */
  readonly errors?: readonly ErrorCode[];
  handler(context: RouteContext<R>): Promise<z.input<S>> | z.input<S>;
}

/** The body of a success answer of an enveloped route: `{code: 0, data}`. */
export const okEnvelope = <T>(data: T) => ({ code: 0 as const, data });

/** Identity helper that lets TypeScript infer a route's schemas for its handler. */
export function defineRoute<R extends RequestSchemas, S extends z.ZodType>(route: Route<R, S>): Route<R, S> {
  return route;
}

export type AnyRoute = Route<RequestSchemas, z.ZodType>;

/** `/api/admin/keys/{id}` -> `/api/admin/keys/:id` */
export function expressPath(path: string): string {
  // not user text: our own route templates
  return path.replace(/\{(\w+)\}/g, ':$1');
}
