import type { SchemaVersion } from './registry.js';

/**
 * Full compatibility between two versions: the newer reader reads data written with the older schema
 * (backward) and the older reader reads data written with the newer one (forward). avsc's resolver
 * construction applies the Avro resolution rules and throws when they fail (e.g. a new field without a
 * default, a changed type, a removed field without a default).
 */
export function compatibilityProblems(older: SchemaVersion, newer: SchemaVersion): string[] {
  const problems: string[] = [];
  const label = `${newer.eventType} v${older.version} -> v${newer.version}`;
  try {
    newer.type.createResolver(older.type);
  } catch (err) {
    problems.push(
      `${label}: v${newer.version} cannot read v${older.version} data: ${(err as Error).message}`,
    );
  }
  try {
    older.type.createResolver(newer.type);
  } catch (err) {
    problems.push(
      `${label}: v${older.version} cannot read v${newer.version} data: ${(err as Error).message}`,
    );
  }
  return problems;
}
