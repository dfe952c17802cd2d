import { ApiKey, type ApiKeyRole, type Orm } from '@tp/db';
import { AppError } from '@tp/runtime';
import { LRUCache } from 'lru-cache';

import { NO_LIMITS, type KeyLimits } from '../keys/budgets/budget.store.js';
import { generateApiKey, hashApiKey } from './api-key.js';

/** What may be shown about a key: never its hash, and the key itself only once, at creation. */
export interface ApiKeyView {
  readonly id: string;
  readonly name: string;
  readonly role: ApiKeyRole;
  readonly prefix: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
  readonly requests_per_day: number | null;
  readonly tokens_per_day: number | null;
  readonly tokens_per_month: number | null;
  readonly characters_per_month: number | null;
  /** The modules a scoped key may report and read; null: every module. */
  readonly modules: string[] | null;
}

export interface Principal {
  readonly keyId: string;
  readonly name: string;
  readonly role: ApiKeyRole;
  /** As of the lookup, which a process may remember for API_KEY_CACHE_MS. */
  readonly limits: KeyLimits;
  /** Set for a key scoped to modules (module-scope.ts); absent: every module. */
  readonly modules?: readonly string[];
}

/** Limits to change; a field left out keeps its value, null removes the limit. */
export type LimitsChange = Partial<KeyLimits>;

export type KeyLookup =
  | { readonly kind: 'valid'; readonly principal: Principal }
  | { readonly kind: 'revoked' }
  | { readonly kind: 'unknown' };

/** last_used_at is written at most this often per key, so busy keys do not cost a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

/** Most keys remembered by one process; past it the least recently used go first. */
const MAX_REMEMBERED = 10_000;

export class ApiKeyStore {
  private readonly touchedAt = new Map<string, number>();
  /** Lookups of known keys, each for `rememberMs`; undefined when nothing is remembered. */
  private readonly rememberedLookups: LRUCache<string, KeyLookup> | undefined;
  /** Bumped by every revocation here: a lookup that started before one must not be remembered. */
  private revocations = 0;

  /**
   * @param rememberMs how long a process trusts a lookup of a known key (0 = never). Revoking through
   *   this process takes effect at once; through another process or the CLI, within this time.
   */
  constructor(
    private readonly orm: Orm,
    rememberMs = 0,
  ) {
    this.rememberedLookups =
      rememberMs > 0 ? new LRUCache({ max: MAX_REMEMBERED, ttl: rememberMs }) : undefined;
  }

  /**
   * `limits`: budgets (absent ones: none). `modules`: a scope for a client key (already checked by
   * keyModules); admin keys are never scoped.
   */
  async create(
    role: ApiKeyRole,
    name: string,
    options: { readonly limits?: LimitsChange; readonly modules?: readonly string[] } = {},
  ): Promise<ApiKeyView & { readonly key: string }> {
    const { limits = {}, modules } = options;
    if (modules && role !== 'client') {
      throw new AppError('VALIDATION_FAILED', 'only client keys can be scoped to modules');
    }
    const material = generateApiKey();
    const em = this.orm.em.fork();
    const entity = em.create(ApiKey, {
      id: crypto.randomUUID(),
      name,
      role,
      keyHash: material.hash,
      keyPrefix: material.prefix,
      ...NO_LIMITS,
      ...limits,
      modules: modules ? [...modules] : null,
    });
    await em.flush();
    return { ...view(entity), key: material.key };
  }

  async list(): Promise<ApiKeyView[]> {
    const keys = await this.orm.em.fork().find(ApiKey, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return keys.map(view);
  }

  /** Revokes a key; revoking it again keeps the first revocation time. Unknown id -> 404. */
  async revoke(id: string): Promise<ApiKeyView> {
    const em = this.orm.em.fork();
    const entity = await em.findOne(ApiKey, { id });
    if (!entity) throw new AppError('NOT_FOUND', `no API key with id ${id}`);
    entity.revokedAt ??= new Date();
    this.revocations += 1;
    await em.flush();
    this.rememberedLookups?.delete(entity.keyHash);
    this.revocations += 1;
    return view(entity);
  }

  /** Sets a key's budgets; takes effect at once in this process, within API_KEY_CACHE_MS in others. */
  async setLimits(id: string, change: LimitsChange): Promise<ApiKeyView> {
    const em = this.orm.em.fork();
    const entity = await em.findOne(ApiKey, { id });
    if (!entity) throw new AppError('NOT_FOUND', `no API key with id ${id}`);
    em.assign(entity, change);
    this.revocations += 1;
    await em.flush();
    this.rememberedLookups?.delete(entity.keyHash);
    this.revocations += 1;
    return view(entity);
  }

  /** One indexed query (api_keys_key_hash_unique) per key and `rememberMs`. */
  async lookup(key: string): Promise<KeyLookup> {
    const hash = hashApiKey(key);
    const known = this.rememberedLookups?.get(hash);
    if (known) {
      if (known.kind === 'valid') this.touch(known.principal.keyId);
      return known;
    }
    const revocations = this.revocations;
    const found = await this.query(hash);
    // Unknown keys are not remembered, so made-up keys cannot fill the memory. A lookup that was in
    // flight while a key was revoked may have read it before the revocation: it is used once, not kept.
    if (found.kind !== 'unknown' && revocations === this.revocations) {
      this.rememberedLookups?.set(hash, found);
    }
    return found;
  }

  private async query(hash: string): Promise<KeyLookup> {
    const row = await this.orm.em.fork().findOne(ApiKey, { keyHash: hash });
    if (!row) return { kind: 'unknown' };
    if (row.revokedAt) return { kind: 'revoked' };
    this.touch(row.id);
    const limits: KeyLimits = {
      requestsPerDay: row.requestsPerDay ?? null,
      tokensPerDay: row.tokensPerDay ?? null,
      tokensPerMonth: row.tokensPerMonth ?? null,
      charactersPerMonth: row.charactersPerMonth ?? null,
    };
    const principal = { keyId: row.id, name: row.name, role: row.role, limits };
    return {
      kind: 'valid',
      principal: row.modules ? { ...principal, modules: [...row.modules] } : principal,
    };
  }

  /** Records use in the background; a failed write only delays last_used_at. */
  private touch(id: string): void {
    const now = Date.now();
    if (now - (this.touchedAt.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.touchedAt.set(id, now);
    this.orm.em
      .fork()
      .nativeUpdate(ApiKey, { id }, { lastUsedAt: new Date(now) })
      .catch(() => this.touchedAt.delete(id));
  }
}

function view(entity: ApiKey): ApiKeyView {
  return {
    id: entity.id,
    name: entity.name,
    role: entity.role,
    prefix: entity.keyPrefix,
    created_at: entity.createdAt.toISOString(),
    last_used_at: entity.lastUsedAt?.toISOString() ?? null,
    revoked_at: entity.revokedAt?.toISOString() ?? null,
    requests_per_day: entity.requestsPerDay ?? null,
    tokens_per_day: entity.tokensPerDay ?? null,
    tokens_per_month: entity.tokensPerMonth ?? null,
    characters_per_month: entity.charactersPerMonth ?? null,
    modules: entity.modules ? [...entity.modules] : null,
  };
}
