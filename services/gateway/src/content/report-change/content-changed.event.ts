import { topicName, type ContentChanged } from '@tp/contracts';
import type { OutboxEntry } from '@tp/db';
import { newEvent } from '@tp/schemas';

import type { ContentChange } from './report-change.command.js';

/** The integration event of a reported change, keyed by entity so its changes stay in order. */
export function contentChangedEntry(
  change: ContentChange,
  correlationId: string,
  topicPrefix: string,
): OutboxEntry & { readonly event: ContentChanged } {
  const event = newEvent(
    'ContentChanged',
    {
      module: change.module,
      entityType: change.entityType,
      entityId: change.entityId,
      sourceLang: change.sourceLang,
      sourceVersion: change.sourceVersion,
      fields: change.fields.map(({ name, text }) => ({ name, text })),
    },
    { correlationId, causationId: null },
  );
  return {
    topic: topicName('contentChanged', topicPrefix),
    key: `${change.entityType}:${change.entityId}`,
    event,
  };
}
