import { API_KEY_ROLES } from '@tp/db';
import { z } from 'zod';

import { defineRoute } from '../http/route.js';

/** Lets a client check its key (and its role) before relying on it. */
export const whoamiRoute = defineRoute({
  method: 'get',
  path: '/api/v1/me',
  summary: 'Describe the calling API key',
  tags: ['keys'],
  access: 'client',
  response: {
    status: 200,
    description: 'The key this request was made with.',
    schema: z.object({
      id: z.uuid(),
      name: z.string(),
      role: z.enum(API_KEY_ROLES),
      modules: z.array(z.string()).nullable().meta({
        description: 'The modules this key may report and read; null: every module.',
      }),
    }),
  },
  handler: ({ principal }) => {
    if (!principal) throw new Error('keyed route reached without a principal');
    return {
      id: principal.keyId,
      name: principal.name,
      role: principal.role,
      modules: principal.modules ? [...principal.modules] : null,
    };
  },
});
