import { defineRoute } from '../../../http/route.js';
import { translationConfigBody, translationConfigSchema } from '../translation-config.js';
import type { TranslationConfigStore } from '../translation-config.store.js';

const TAGS = ['admin: translation'];

/** GET and PUT /api/admin/translate/config: the translation_config singleton. */
export function translationConfigRoutes(store: TranslationConfigStore) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/admin/translate/config',
      summary: 'Read the translation configuration',
      description: 'Target languages of the content pipeline and whether it translates at all.',
      tags: TAGS,
      access: 'admin',
      response: { status: 200, description: 'The configuration.', schema: translationConfigSchema },
      handler: () => store.read(),
    }),
    defineRoute({
      method: 'put',
      path: '/api/admin/translate/config',
      summary: 'Update the translation configuration',
      description:
        'Sets `target_languages` (0 to 50 supported codes, any case: `EN`, `zh_cn`; stored as listed by GET /api/v1/translate/languages; each once), `enabled`, `human_only` (a list like `target_languages`), or any of them; an absent field keeps its value. Bumps `revision`. Applies to the next ContentChanged in every worker, without a restart; translations already requested or stored are not touched.',
      tags: TAGS,
      access: 'admin',
      request: { body: translationConfigBody },
      response: { status: 200, description: 'The updated configuration.', schema: translationConfigSchema },
      handler: ({ body }) => store.update(body),
    }),
  ];
}
