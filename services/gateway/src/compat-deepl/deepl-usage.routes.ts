import { z } from 'zod';

import type { Principal } from '../auth/api-key.store.js';
import { defineRoute } from '../http/route.js';
import type { UsageReport } from '../usage/read-usage.js';
import { DEEPL_TAGS, DEEPL_WIRE } from './deepl-wire.js';

/** DeepL's figure for "no limit" (what its API answers an account without one). */
export const DEEPL_NO_LIMIT = 1_000_000_000_000;

/** GET /v2/usage: GET /api/v1/usage's figures for the key, in DeepL's two fields. */
export function deeplUsageRoute(readUsage: (principal: Principal) => Promise<UsageReport>) {
  return defineRoute({
    method: 'get',
    path: '/v2/usage',
    summary: 'DeepL: characters used this month',
    description: `DeepL-compatible. The calling key's characters translated by the engines this UTC calendar month and its monthly character budget, as GET /api/v1/usage reports them; without a budget \`character_limit\` is ${DEEPL_NO_LIMIT}, as DeepL answers an account without a limit.`,
    tags: DEEPL_TAGS,
    access: 'client',
    wire: DEEPL_WIRE,
    response: {
      status: 200,
      description: 'The usage.',
      schema: z.object({ character_count: z.int(), character_limit: z.int() }),
    },
    errors: ['DEPENDENCY_UNAVAILABLE'],
    handler: async ({ principal }) => {
      if (!principal) throw new Error('keyed route reached without a principal');
      const usage = await readUsage(principal);
      return {
        character_count: usage.character_count,
        character_limit: usage.character_limit ?? DEEPL_NO_LIMIT,
      };
    },
  });
}
