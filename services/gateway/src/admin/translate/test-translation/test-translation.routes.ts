import { requestId } from '@tp/runtime';
import { chainTestResult } from '@tp/service-contracts';

import { defineRoute } from '../../../http/route.js';
import { CHAIN_ERRORS, documentedTextBody, translationRequest } from '../../../translate/translate.routes.js';
import type { TranslatorClient } from '../../../translate/translator-client.js';

/** POST /api/admin/translate/test: the engine chain alone, through the translator's POST /translate/test. */
export function testTranslationRoute(translator: TranslatorClient, maxTextChars: number) {
  return defineRoute({
    method: 'post',
    path: '/api/admin/translate/test',
    summary: 'Test a translation',
    description:
      'Runs the engine chain on the text as POST /api/v1/translate would, but without the hot cache and without storing the result, and shows which engine answered and what every engine did, with its time. When every engine fails the answer is 503 TRANSLATION_UNAVAILABLE with the timed attempts in `details.attempts`. Engine breakers and counters see the call like any other.',
    tags: ['admin: translation'],
    access: 'admin',
    request: { body: documentedTextBody(maxTextChars) },
    response: {
      status: 200,
      description: 'The translation and the attempts.',
      schema: chainTestResult,
    },
    errors: CHAIN_ERRORS,
    handler: ({ body, req, signal }) =>
      translator.testChain(translationRequest(body, maxTextChars), requestId(req), signal),
  });
}
