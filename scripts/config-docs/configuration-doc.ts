import { z } from 'zod';

/** The settings one program reads: its zod shape (every entry `.describe`d). */
export interface SettingsSource {
  readonly program: string;
  readonly shape: Readonly<Record<string, z.ZodType>>;
}

interface Row {
  readonly name: string;
  readonly meaning: string;
  /** Program -> default, in the order the sources were given. */
  readonly defaults: Map<string, unknown>;
}

/** A default as the table shows it. */
export function shownDefault(value: unknown): string {
  if (value === '' || (Array.isArray(value) && value.length === 0)) return 'empty';
  if (Array.isArray(value)) return `\`${value.join(',')}\``;
  if (typeof value === 'object' && value !== null) return `\`${JSON.stringify(value)}\``;
  return `\`${String(value)}\``;
}

/** One row per setting name, its meaning checked to be one text wherever it is read. */
function rowsOf(sources: readonly SettingsSource[]): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const { program, shape } of sources) {
    const defaults = z.object(shape).parse({}) as Record<string, unknown>;
    for (const [name, schema] of Object.entries(shape)) {
      const meaning = schema.description;
      if (!meaning)
        throw new Error(`${name} (${program}) has no description: add .describe('...') to its schema`);
      const row = rows.get(name) ?? { name, meaning, defaults: new Map() };
      if (row.meaning !== meaning) {
        throw new Error(
          `${name} means two things: "${row.meaning}" (${[...row.defaults.keys()]}) and "${meaning}" (${program})`,
        );
      }
      row.defaults.set(program, defaults[name]);
      rows.set(name, row);
    }
  }
  return rows;
}

function defaultCell(row: Row): string {
  const shown = [...row.defaults].map(([program, value]) => [program, shownDefault(value)] as const);
  if (new Set(shown.map(([, value]) => value)).size === 1) return shown[0]?.[1] ?? '';
  return shown.map(([program, value]) => `${value} (${program})`).join(', ');
}

function table(rows: readonly Row[], readBy: boolean): string[] {
  const lines = readBy
    ? ['| setting | default | read by | meaning |', '|---|---|---|---|']
    : ['| setting | default | meaning |', '|---|---|---|'];
  for (const row of rows) {
    const cells = [
      `\`${row.name}\``,
      defaultCell(row),
      ...(readBy ? [[...row.defaults.keys()].join(', ')] : []),
      row.meaning,
    ];
    lines.push(`| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`);
  }
  return lines;
}

/**
 * docs/configuration.md: every setting once, from the typed settings of `services` (read by the
 * processes) and of `tools` (read by `npm start` and the CLIs). A setting every service reads is in
 * "Every service"; the others under the first service that reads it, naming the others.
 */
export function configurationDoc(
  services: readonly SettingsSource[],
  tools: readonly SettingsSource[],
): string {
  const rows = rowsOf([...services, ...tools]);
  const everywhere = [...rows.values()].filter((row) => services.every((s) => row.defaults.has(s.program)));
  const sections: string[][] = [['## Every service', '', ...table(everywhere, false)]];
  const placed = new Set(everywhere.map((row) => row.name));
  for (const { program } of [...services, ...tools]) {
    const own = [...rows.values()].filter((row) => !placed.has(row.name) && row.defaults.has(program));
    own.forEach((row) => placed.add(row.name));
    if (own.length > 0) sections.push([`## ${program}`, '', ...table(own, true)]);
  }
  return [
    '# Configuration',
    '',
    '<!-- Written by `npm run config:docs` from the typed settings of each program; a test fails when this',
    'file and the settings differ. Edit the settings (their `.describe`), then run the command. -->',
    '',
    'Each service reads its settings from environment variables through one typed module',
    '(`services/<service>/src/config.ts`, the shared ones in `libs/platform/src/settings.ts`) and fails at',
    'start with one line naming a bad one, e.g. `[worker] configuration error: PORT: must be a TCP port',
    'number (got "eighty")`. Values no deployment has needed to change are named constants in those',
    'modules instead (`GATEWAY_TUNING`, `CHAT_TUNING`, `TRANSLATOR_TUNING`, `NLI_TUNING`, `WORKER_TUNING`,',
    '`COMMON_TUNING`), each with its reason; a service refuses to start when one of them is set in its',
    "environment. OpenTelemetry's standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, ...) are in",
    '[observability.md](observability.md).',
    '',
    `**${rows.size} settings.**`,
    '',
    ...sections.flatMap((section) => [...section, '']),
  ].join('\n');
}
