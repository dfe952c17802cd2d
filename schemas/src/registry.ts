import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import avsc from 'avsc';

import { SchemaError } from './errors.js';

/** One released schema version of one event type, as read from schemas/avro/<event-type>/v<N>.avsc. */
export interface SchemaVersion {
  readonly eventType: string;
  readonly version: number;
  readonly file: string;
  readonly type: avsc.Type;
  /** SHA-256 over the Parsing Canonical Form, hex; travels in the tp-schema-fingerprint header. */
  readonly fingerprint: string;
  readonly schema: avsc.schema.RecordType;
}

/** Folder holding the .avsc files; the same relative path works from src/ (tests) and dist/ (runtime). */
export const AVRO_DIR = fileURLToPath(new URL('../avro/', import.meta.url));

const VERSION_FILE = /^v(\d+)\.avsc$/;

export class SchemaRegistry {
  private readonly byFingerprint = new Map<string, SchemaVersion>();
  private readonly byType = new Map<string, SchemaVersion[]>();

  constructor(versions: readonly SchemaVersion[]) {
    for (const v of versions) {
      this.byFingerprint.set(v.fingerprint, v);
      const list = this.byType.get(v.eventType) ?? [];
      list.push(v);
      list.sort((a, b) => a.version - b.version);
      this.byType.set(v.eventType, list);
    }
  }

  /** Reads every schemas/avro/<folder>/v<N>.avsc. */
  static load(dir: string = AVRO_DIR): SchemaRegistry {
    const versions: SchemaVersion[] = [];
    for (const folder of readdirSync(dir, { withFileTypes: true })) {
      if (!folder.isDirectory()) continue;
      for (const name of readdirSync(`${dir}/${folder.name}`)) {
        const match = VERSION_FILE.exec(name);
        if (!match) continue;
        versions.push(parseSchemaFile(`${dir}/${folder.name}/${name}`, Number(match[1])));
      }
    }
    return new SchemaRegistry(versions);
  }

  eventTypes(): string[] {
    return [...this.byType.keys()].sort();
  }

  versions(eventType: string): readonly SchemaVersion[] {
    const list = this.byType.get(eventType);
    if (!list) throw new SchemaError('SCHEMA_UNKNOWN_EVENT_TYPE', `no schema for event type ${eventType}`);
    return list;
  }

  latest(eventType: string): SchemaVersion {
    const list = this.versions(eventType);
    return list[list.length - 1] as SchemaVersion;
  }

  find(fingerprint: string): SchemaVersion | undefined {
    return this.byFingerprint.get(fingerprint);
  }
}

export function parseSchemaFile(file: string, version: number): SchemaVersion {
  let schema: avsc.schema.RecordType;
  let type: avsc.Type;
  try {
    schema = JSON.parse(readFileSync(file, 'utf8')) as avsc.schema.RecordType;
    type = avsc.Type.forSchema(schema);
  } catch (err) {
    throw new SchemaError('SCHEMA_FILE_INVALID', `${file}: ${(err as Error).message}`);
  }
  if (schema.type !== 'record' || typeof schema.name !== 'string') {
    throw new SchemaError('SCHEMA_FILE_INVALID', `${file}: top level must be a named record`);
  }
  return {
    eventType: schema.name,
    version,
    file,
    type,
    schema,
    fingerprint: type.fingerprint('sha256').toString('hex'),
  };
}
