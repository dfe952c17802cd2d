import { describe, expect, it, jest } from '@jest/globals';
import type { TranslationCompletedData } from '@tp/contracts';
import type { IncomingMessage } from '@tp/kafka';
import { EventCodec, newEvent } from '@tp/schemas';

import type { ReadCacheInvalidator } from '../shared/read-cache-invalidator.js';
import { TranslationCompletedHandler } from './translation-completed.handler.js';
import type { TranslationWriter } from './translation-writer.js';

// Which results drop a read-cache entry: the writer and Redis are stand-ins (the int tests use real
// ones); what is checked is whether the handler asks for the deletion.
const codec = new EventCodec();

function message(over: Partial<TranslationCompletedData>): IncomingMessage {
  const event = newEvent(
    'TranslationCompleted',
    {
      entityType: 'vendor',
      entityId: 'v-1',
      field: 'name',
      sourceLang: 'en',
      targetLang: 'es',
      translatedText: 'Hola',
      sourceHash: 'a'.repeat(64),
      sourceVersion: 1,
      engine: 'apertium',
      truncated: false,
      detectedSourceLang: null,
      requestedAt: 1_000,
      fallback: false,
      ...over,
    },
    { correlationId: 'corr-1' },
  );
  const { value, headers } = codec.encode(event);
  return { topic: 't', partition: 0, offset: '0', key: null, value, headers, timestamp: '0' };
}

function handlerWith() {
  const write = jest.fn(async () => 'written' as const);
  const invalidate = jest.fn(async (_type: string, _id: string) => undefined);
  const handler = new TranslationCompletedHandler({
    codec,
    writer: { write } as unknown as TranslationWriter,
    cache: { invalidate } as unknown as ReadCacheInvalidator,
  });
  return { handler, write, invalidate };
}

describe('TranslationCompletedHandler: the read cache', () => {
  it("drops a reported entity's merged view after writing its result", async () => {
    const { handler, write, invalidate } = handlerWith();

    await handler.handle(message({ entityType: 'vendor', entityId: 'v-1' }));

    expect(write).toHaveBeenCalledTimes(1);
    expect(invalidate).toHaveBeenCalledWith('vendor', 'v-1');
  });

  it('asks Redis for nothing after a free-text result, which has no merged view', async () => {
    const { handler, write, invalidate } = handlerWith();

    await handler.handle(message({ entityType: 'text', entityId: 'h-1', field: 'text', sourceVersion: 0 }));

    expect(write).toHaveBeenCalledTimes(1);
    expect(invalidate).not.toHaveBeenCalled();
  });
});
