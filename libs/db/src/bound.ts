import { CompiledQuery } from 'kysely';

import type { Orm } from './orm.js';

type Em = Orm['em'];

/** The most parameters one statement may bind (the protocol counts them in 16 bits). */
export const MAX_BOUND_PARAMETERS = 65_535;

/** What a statement returns: its rows (`all`), or the affected count with them (`run`). */
export interface RunResult<T> {
  readonly affectedRows: number;
  readonly rows: T[];
}

/**
 * Runs `sql` on `em`'s transaction (or the pool without one), its `?` placeholders sent as bound
 * parameters ($1, $2, …) rather than written into the text as `em.execute` does: MikroORM formats
 * every value into the statement, so a batch of rows became a statement of hundreds of kilobytes
 * (a Buffer as a hex literal, twice its size) that the ORM formatted and Postgres parsed, and its
 * text differed for every batch. Bound, the text holds only placeholders, the values travel apart
 * (Buffers as binary bytea), and Postgres types each parameter from where it stands.
 *
 * Differences from `em.execute`, for statements written for it: every `?` is a value (no `??`
 * identifiers, no `?` inside literals or jsonb operators); an array is sent as one Postgres array,
 * not spread into a list; a value's type comes from its context, so a parameter whose context does
 * not fix one (a column of a VALUES list in a FROM clause) is text unless the SQL casts it.
 * Statements with more than MAX_BOUND_PARAMETERS values go through `em.execute` unchanged. The
 * statement is sent at once (no await before it), as `em.execute` would after connectDatabase.
 */
export async function executeBound<T = Record<string, unknown>>(
  em: Em,
  sql: string,
  params: readonly unknown[],
  method: 'all',
): Promise<T[]>;
export async function executeBound<T = Record<string, unknown>>(
  em: Em,
  sql: string,
  params: readonly unknown[],
  method: 'run',
): Promise<RunResult<T>>;
export async function executeBound<T>(
  em: Em,
  sql: string,
  params: readonly unknown[],
  method: 'all' | 'run',
): Promise<T[] | RunResult<T>> {
  if (params.length > MAX_BOUND_PARAMETERS) {
    return em.execute(sql, [...params], method) as Promise<T[] | RunResult<T>>;
  }
  const text = numberPlaceholders(sql, params.length);
  const logger = em.config.getLogger();
  const started = Date.now();
  try {
    const result = await em.getKysely().executeQuery<T>(CompiledQuery.raw(text, [...params]));
    if (logger.isEnabled('query')) {
      logger.logQuery({ query: text, params: [...params], took: Date.now() - started, level: 'info' });
    }
    if (method === 'all') return result.rows;
    return { affectedRows: Number(result.numAffectedRows ?? result.rows.length), rows: result.rows };
  } catch (err) {
    if (logger.isEnabled('query')) {
      logger.logQuery({ query: text, params: [...params], took: Date.now() - started, level: 'error' });
    }
    throw em.getDriver().convertException(err instanceof Error ? err : new Error(String(err)));
  }
}

/** `sql` with its `?` placeholders numbered $1…$n; throws unless there are exactly `count` of them. */
export function numberPlaceholders(sql: string, count: number): string {
  // indexOf and slices: a replace() with a callback took ten times as long (10 ms for the 13,000
  // placeholders of a 1,000-row upsert).
  let text = '';
  let from = 0;
  let n = 0;
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', from)) {
    text += `${sql.slice(from, at)}$${++n}`;
    from = at + 1;
  }
  if (n !== count) throw new Error(`statement has ${n} placeholders for ${count} parameters`);
  return text + sql.slice(from);
}
