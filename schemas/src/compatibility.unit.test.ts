import { readFileSync } from 'node:fs';

import { describe, expect, it } from '@jest/globals';
import avsc from 'avsc';

import { compatibilityProblems } from './compatibility.js';
import { AVRO_DIR, SchemaRegistry, type SchemaVersion } from './registry.js';

const registry = SchemaRegistry.load();
/** Fingerprints of released versions: a released schema file must never change. */
const released = JSON.parse(readFileSync(`${AVRO_DIR}released.json`, 'utf8')) as Record<
  string,
  Record<string, string>
>;

describe('schema evolution', () => {
  it.each(registry.eventTypes())(
    '%s: every version is fully compatible with every earlier one',
    (eventType) => {
      const versions = registry.versions(eventType);
      const problems = versions.flatMap((newer, i) =>
        versions.slice(0, i).flatMap((older) => compatibilityProblems(older, newer)),
      );
      expect(problems).toEqual([]);
    },
  );

  it.each(registry.eventTypes())(
    '%s: released versions are unchanged and every version is recorded',
    (eventType) => {
      const actual = Object.fromEntries(
        registry.versions(eventType).map((v) => [String(v.version), v.fingerprint]),
      );
      // A new version file must be added to schemas/avro/released.json with the fingerprint shown here.
      expect(actual).toEqual(released[eventType]);
    },
  );

  it('versions are numbered 1, 2, 3... without gaps', () => {
    for (const eventType of registry.eventTypes()) {
      expect(registry.versions(eventType).map((v) => v.version)).toEqual(
        registry.versions(eventType).map((_, i) => i + 1),
      );
    }
  });

  it('reports a new field without a default as incompatible', () => {
    const latest = registry.latest('TranslationCompleted');
    const broken = withDataFields(latest, (fields) => [...fields, { name: 'quality', type: 'double' }]);
    const [next, current] = [latest.version + 1, latest.version];
    expect(compatibilityProblems(latest, broken).join('\n')).toContain(
      `v${next} cannot read v${current} data`,
    );
  });

  it('reports a changed field type as incompatible', () => {
    const latest = registry.latest('ContentChanged');
    const broken = withDataFields(latest, (fields) =>
      fields.map((f) => (f.name === 'sourceVersion' ? { ...f, type: 'string' } : f)),
    );
    expect(compatibilityProblems(latest, broken)).toHaveLength(2);
  });

  it('accepts a new optional field with a default', () => {
    const latest = registry.latest('ContentChanged');
    const evolved = withDataFields(latest, (fields) => [
      ...fields,
      { name: 'tenant', type: ['null', 'string'], default: null },
    ]);
    expect(compatibilityProblems(latest, evolved)).toEqual([]);
  });
});

type Field = avsc.schema.RecordType['fields'][number];

function withDataFields(base: SchemaVersion, change: (fields: Field[]) => Field[]): SchemaVersion {
  const schema = structuredClone(base.schema);
  const data = schema.fields.find((f) => f.name === 'data')?.type as avsc.schema.RecordType;
  data.fields = change(data.fields);
  const type = avsc.Type.forSchema(schema);
  return {
    ...base,
    version: base.version + 1,
    schema,
    type,
    fingerprint: type.fingerprint('sha256').toString('hex'),
  };
}
