import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

import { ApiKey } from './api-key.entity.js';

/**
 * Tokens one chat completion used, as the upstream reported them, charged to the API key that asked.
 * Rows are only inserted; admins read them summed per key and model. API keys are revoked, never
 * deleted, so the cascade only matters to someone deleting a key by hand.
 */
export const ChatUsage = defineEntity({
  name: 'ChatUsage',
  tableName: 'chat_usage',
  properties: {
    id: p.uuid().primary(),
    apiKey: p.manyToOne(ApiKey).mapToPk().deleteRule('cascade'),
    /** The gateway's request id (x-request-id), to find the request in the logs. */
    requestId: p.text(),
    /** The model the client asked for, which may be an alias. */
    model: p.string().length(200),
    /** The model the provider actually ran. */
    upstreamModel: p.string().length(200),
    provider: p.string().length(100),
    promptTokens: p.integer(),
    completionTokens: p.integer(),
    totalTokens: p.integer(),
    stream: p.boolean(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [
    { name: 'chat_usage_api_key_id_created_at_idx', properties: ['apiKey', 'createdAt'] },
    { name: 'chat_usage_created_at_idx', properties: ['createdAt'] },
  ],
});
export type ChatUsage = InferEntity<typeof ChatUsage>;
