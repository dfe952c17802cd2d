import { describe, expect, it } from '@jest/globals';
import { ALL_TOPICS, EVENT_TYPES } from '@tp/contracts';

import { SchemaRegistry } from './registry.js';

const registry = SchemaRegistry.load();
const ENVELOPE = [
  'eventId',
  'eventType',
  'eventVersion',
  'occurredAt',
  'correlationId',
  'causationId',
  'data',
];

describe('contracts and schemas agree', () => {
  it('every event type in contracts has a schema, and every schema an event type', () => {
    expect([...EVENT_TYPES].sort()).toEqual(registry.eventTypes());
  });

  it('every topic carries only event types that have schemas, and every event type has a topic', () => {
    const carried = new Set(ALL_TOPICS.flatMap((t) => t.events));
    expect([...carried].sort()).toEqual(registry.eventTypes());
  });

  it('topic names are versioned and unique', () => {
    const names = ALL_TOPICS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/\.v\d+$/);
  });

  it.each(registry.eventTypes())('%s carries the full envelope with identical field types', (eventType) => {
    const reference = registry.latest('ContentChanged').schema.fields.filter((f) => f.name !== 'data');
    for (const version of registry.versions(eventType)) {
      expect(version.schema.fields.map((f) => f.name)).toEqual(ENVELOPE);
      expect(version.schema.fields.filter((f) => f.name !== 'data')).toEqual(reference);
    }
  });
});
