import { ApiKey, ChatUsage as ChatUsageRow, type Orm } from '@tp/db';

/** What one chat completion used, from the upstream's `usage`, charged to the caller's key. */
export interface ChatUsage {
  readonly keyId: string;
  readonly requestId: string;
  /** The model the client asked for, which may be an alias. */
  readonly model: string;
  /** The model the provider ran. */
  readonly upstreamModel: string;
  readonly provider: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly stream: boolean;
}

/** Which usage to sum: `since` is inclusive, `until` exclusive; a bound left out does not limit. */
export interface UsageFilter {
  readonly since?: Date;
  readonly until?: Date;
  readonly keyId?: string;
}

/** Usage of one key with one requested model. */
export interface UsageSummaryRow {
  readonly keyId: string;
  readonly keyName: string;
  readonly model: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** Sums come back from Postgres as bigint strings; a token count never nears 2^53. */
interface SummaryRecord {
  readonly key_id: string;
  readonly model: string;
  readonly requests: string;
  readonly prompt_tokens: string;
  readonly completion_tokens: string;
  readonly total_tokens: string;
}

/** Token usage of chat completions in Postgres (table chat_usage); rows are only inserted. */
export class ChatUsageStore {
  constructor(private readonly orm: Orm) {}

  /**
   * One insert through the entity (em.insert, outside the unit of work); created_at is the database's
   * clock.
   */
  async record(usage: ChatUsage): Promise<void> {
    await this.orm.em.fork().insert(ChatUsageRow, {
      id: crypto.randomUUID(),
      apiKey: usage.keyId,
      requestId: usage.requestId,
      model: usage.model,
      upstreamModel: usage.upstreamModel,
      provider: usage.provider,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      totalTokens: usage.totalTokens,
      stream: usage.stream,
    });
  }

  /**
   * Usage per key and requested model, biggest spenders first, in one query. Revoked keys still show:
   * what they used was used.
   */
  async summary(filter: UsageFilter): Promise<UsageSummaryRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.since) {
      where.push('u.created_at >= ?');
      params.push(filter.since);
    }
    if (filter.until) {
      where.push('u.created_at < ?');
      params.push(filter.until);
    }
    if (filter.keyId) {
      where.push('u.api_key_id = ?');
      params.push(filter.keyId);
    }
    const em = this.orm.em.fork();
    const rows = await em.getConnection().execute<SummaryRecord[]>(
      `select u.api_key_id as key_id, u.model,
          count(*) as requests,
          sum(u.prompt_tokens) as prompt_tokens,
          sum(u.completion_tokens) as completion_tokens,
          sum(u.total_tokens) as total_tokens
        from chat_usage u
        ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
        group by u.api_key_id, u.model`,
      params,
    );
    // The keys' names through their entity (api_keys belongs to the key store), one query.
    const ids = [...new Set(rows.map((row) => row.key_id))];
    const keys =
      ids.length === 0 ? [] : await em.find(ApiKey, { id: { $in: ids } }, { fields: ['id', 'name'] });
    const names = new Map(keys.map((key) => [key.id, key.name]));
    return rows
      .filter((row) => names.has(row.key_id))
      .map((row) => ({
        keyId: row.key_id,
        keyName: names.get(row.key_id) ?? '',
        model: row.model,
        requests: Number(row.requests),
        promptTokens: Number(row.prompt_tokens),
        completionTokens: Number(row.completion_tokens),
        totalTokens: Number(row.total_tokens),
      }))
      .sort(
        (a, b) =>
          b.totalTokens - a.totalTokens ||
          compare(a.keyName, b.keyName) ||
          compare(a.keyId, b.keyId) ||
          compare(a.model, b.model),
      );
  }
}

/** Code-unit order of two strings: a stable order for the listing, whatever the database collates by. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
