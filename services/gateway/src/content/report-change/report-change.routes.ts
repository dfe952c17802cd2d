import {
  contentText,
  entityId,
  entitySegment,
  FIELD_NAME_RULE,
  fieldName,
  MAX_REPORTED_FIELDS,
  sourceVersion,
} from '@tp/pipeline';
import { AppError, requestId, requestLog } from '@tp/runtime';
import { TEXT_FORMATS } from '@tp/translation';
import { SchemaError } from '@tp/schemas';
import { z } from 'zod';

import { assertInScope } from '../../auth/module-scope.js';
import { defineRoute } from '../../http/route.js';
import type { GatewayCommandBus } from '../../commands/command-bus.js';
import { assertTypeNotReserved, conflictForKey, reporterOf } from '../../shared/reported-entity.js';
import { languageTagSchema, supportedLanguage } from '../language.js';
import { ReportContentChangeCommand } from './report-change.command.js';

function reportBody(maxTextChars: number) {
  const text = contentText(maxTextChars);
  return z.strictObject({
    source_lang: languageTagSchema.meta({
      description: 'Language of the texts, a code of GET /api/v1/translate/languages (`zh-CN`, `en`).',
    }),
    source_version: sourceVersion.meta({
      description:
        'Version of the entity in the business system, increasing with each change; a translation made for an older version never replaces one for a newer version.',
    }),
    fields: z
      .record(fieldName, text)
      .refine((f) => Object.keys(f).length >= 1, { message: 'at least one field is needed' })
      .refine((f) => Object.keys(f).length <= MAX_REPORTED_FIELDS, {
        message: `at most ${MAX_REPORTED_FIELDS} fields per report`,
      })
      .meta({
        description: `The entity's fields, name -> source text: 1 to ${MAX_REPORTED_FIELDS} fields, each text 1 to ${maxTextChars} characters (code points). ${FIELD_NAME_RULE} A stored field left out is removed, with its translations; an unchanged text requests nothing.`,
        minProperties: 1,
        maxProperties: MAX_REPORTED_FIELDS,
      }),
    formats: z.record(fieldName, z.enum(TEXT_FORMATS)).optional().meta({
      description:
        "How a field's text is written, name -> `text` (the default for a field not named here), `html` or `markdown`: its translations keep the markup (tags, attributes, code and links as the source has them) and are valid HTML or Markdown in every target language. A name that is not one of `fields` is refused.",
    }),
  });
}

/** 400 VALIDATION_FAILED when `formats` names a field that `fields` does not have. */
function assertFormatsNameFields(body: z.infer<ReturnType<typeof reportBody>>): void {
  const strays = Object.keys(body.formats ?? {}).filter((name) => !Object.hasOwn(body.fields, name));
  if (strays.length === 0) return;
  throw new AppError('VALIDATION_FAILED', 'formats names fields that are not in fields', {
    issues: strays.map((name) => ({
      path: `body.formats.${name}`,
      message: 'names no field of `fields`',
      code: 'custom',
    })),
  });
}

/** POST /api/v1/content/{module}/{type}/{id}: the command side of the content pipeline. */
export function reportChangeRoute(commands: GatewayCommandBus, maxTextChars: number) {
  return defineRoute({
    method: 'post',
    path: '/api/v1/content/{module}/{type}/{id}',
    summary: 'Report changed content of one entity',
    description:
      'Any API key. A business system reports the changed fields of one entity (e.g. module `catalog`, type `vendor`). The change is written to the outbox in one transaction and answered 202 with a tracking id (the ContentChanged event id); the pipeline then stores the source and translates changed fields into the configured languages. A type belongs to the first module that reported it: another module gets 409 MODULE_CONFLICT. Types `text` and `tracking` are reserved (400 ENTITY_TYPE_RESERVED). The report is the whole set of fields of the entity: a stored field it leaves out is removed with its translations (unless stored at a newer version). Follow it with GET /api/v1/content/tracking/{tracking_id}. A change that could not travel through Kafka is refused before it is accepted (413 CONTENT_TOO_LARGE, counted in UTF-8 bytes: the change against the max.message.bytes of the content topic, the translation messages of each field against theirs, the result at 4 bytes per source byte). Read the result with GET on this path or GET /api/v1/content/{type}/{id}. A key scoped to modules gets 403 MODULE_NOT_ALLOWED for any other module (and a MODULE_CONFLICT that does not name a module outside its scope).',
    tags: ['content'],
    access: 'client',
    request: {
      params: z.strictObject({ module: entitySegment, type: entitySegment, id: entityId }),
      body: reportBody(maxTextChars),
    },
    response: {
      status: 202,
      description: 'Accepted: the change is in the outbox and will be processed.',
      schema: z.object({
        tracking_id: z.uuid().meta({ description: 'Id of the ContentChanged event (its eventId).' }),
        status: z.literal('accepted'),
      }),
    },
    errors: [
      'MODULE_NOT_ALLOWED',
      'MODULE_CONFLICT',
      'UNSUPPORTED_LANGUAGE',
      'ENTITY_TYPE_RESERVED',
      'CONTENT_TOO_LARGE',
      'DEPENDENCY_UNAVAILABLE',
    ],
    handler: async ({ params, body, req, principal }) => {
      assertInScope(principal, params.module);
      assertTypeNotReserved(params.type);
      assertFormatsNameFields(body);
      const command = new ReportContentChangeCommand(
        {
          module: params.module,
          entityType: params.type,
          entityId: params.id,
          sourceLang: supportedLanguage('source_lang', body.source_lang),
          sourceVersion: body.source_version,
          fields: Object.entries(body.fields).map(([name, text]) => ({
            name,
            text,
            format: body.formats?.[name] ?? 'text',
          })),
        },
        requestId(req),
        reporterOf(principal),
      );
      const accepted = await commands.execute(command).catch((caught: unknown) => {
        const err = conflictForKey(caught, principal, params.type);
        if (err instanceof AppError || err instanceof SchemaError) throw err;
        requestLog(req).error({ err }, 'could not write a content change to the outbox');
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'cannot store the change right now; retry later');
      });
      return { tracking_id: accepted.trackingId, status: 'accepted' as const };
    },
  });
}
