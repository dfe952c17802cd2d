import type avsc from 'avsc';

import type { SchemaRegistry } from './registry.js';

/** Where the generated types live, relative to the repository root. */
export const GENERATED_CONTRACTS_PATH = 'contracts/src/generated/events.ts';

type AnySchema = avsc.Schema | avsc.schema.RecordType | string;

/**
 * Renders TypeScript types for the latest version of every event type. Covers the Avro subset our
 * schemas use: primitives, records, arrays, maps, enums and unions. The top-level record's eventType
 * becomes a string literal so events form a discriminated union.
 */
export function generateContracts(registry: SchemaRegistry): string {
  const declarations = new Map<string, string>();
  const eventTypes = registry.eventTypes();
  for (const eventType of eventTypes) {
    const latest = registry.latest(eventType);
    renderRecord(latest.schema, declarations, eventType);
  }
  const lines = [
    '// Generated from schemas/avro by `npm run contracts:gen`. Do not edit: change the .avsc files and re-run.',
    '// A unit test (schemas/src/generate-contracts.unit.test.ts) fails when this file is out of date.',
    '',
    ...[...declarations.values()],
    `export type IntegrationEvent = ${eventTypes.join(' | ')};`,
    '',
    "export type EventType = IntegrationEvent['eventType'];",
    '',
    `export const EVENT_TYPES = [${eventTypes.map((t) => `'${t}'`).join(', ')}] as const;`,
    '',
    '/** Schema version each event type is written with (the latest .avsc). */',
    'export const LATEST_SCHEMA_VERSION = {',
    ...eventTypes.map((t) => `  ${t}: ${registry.latest(t).version},`),
    '} as const satisfies Record<EventType, number>;',
    '',
  ];
  return lines.join('\n');
}

function renderRecord(
  schema: avsc.schema.RecordType,
  declarations: Map<string, string>,
  eventType?: string,
): string {
  const name = schema.name.split('.').pop() as string;
  if (declarations.has(name)) return name;
  declarations.set(name, ''); // reserve the slot so nested records come after their parent
  const fields = schema.fields.map((field) => {
    const type =
      eventType && field.name === 'eventType' ? `'${eventType}'` : renderType(field.type, declarations);
    const doc = field.doc ? `  /** ${field.doc} */\n` : '';
    return `${doc}  readonly ${field.name}: ${type};`;
  });
  const doc = schema.doc ? `/** ${schema.doc} */\n` : '';
  declarations.set(name, `${doc}export interface ${name} {\n${fields.join('\n')}\n}\n`);
  return name;
}

function renderType(schema: AnySchema, declarations: Map<string, string>): string {
  if (typeof schema === 'string') return renderPrimitive(schema);
  if (Array.isArray(schema)) return schema.map((s) => renderType(s as AnySchema, declarations)).join(' | ');
  const complex = schema as { type: string } & Record<string, unknown>;
  switch (complex.type) {
    case 'record':
    case 'error':
      return renderRecord(complex as unknown as avsc.schema.RecordType, declarations);
    case 'array': {
      const items = renderType(complex.items as AnySchema, declarations);
      return items.includes(' ') ? `readonly (${items})[]` : `readonly ${items}[]`;
    }
    case 'map':
      return `Readonly<Record<string, ${renderType(complex.values as AnySchema, declarations)}>>`;
    case 'enum':
      return (complex.symbols as string[]).map((s) => `'${s}'`).join(' | ');
    case 'fixed':
      return 'Buffer';
    default:
      return renderPrimitive(complex.type);
  }
}

function renderPrimitive(name: string): string {
  switch (name) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return 'number';
    case 'bytes':
      return 'Buffer';
    case 'string':
      return 'string';
    default:
      throw new Error(`unsupported Avro type ${name}: extend generateContracts`);
  }
}
