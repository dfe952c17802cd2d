/** The tables `sql` names after a keyword that takes one, each once. */
export function tablesNamedIn(sql: string, tables: readonly string[]): string[];

declare const plugin: { readonly rules: Readonly<Record<string, unknown>> };
export default plugin;
