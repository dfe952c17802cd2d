import { ModerationTerm, type ModerationTermKind, type Orm } from '@tp/db';
import { AppError } from '@tp/runtime';

import { normaliseTerm } from '../normalise/normalise.js';

/** A custom term as the admin API shows it. */
export interface ModerationTermView {
  readonly id: string;
  readonly term: string;
  readonly kind: ModerationTermKind;
  readonly language: string | null;
  readonly created_at: string;
}

export interface NewModerationTerm {
  readonly term: string;
  readonly kind: ModerationTermKind;
  readonly language?: string | undefined;
}

/** What the term catalogue reads: the terms, and a cheap way to tell whether they changed. */
export interface TermSource {
  list(): Promise<ModerationTermView[]>;
  /** Changes whenever a term is added or deleted (rows are never updated). */
  revision(): Promise<string>;
}

/** Custom moderation terms and allowed phrases in Postgres (table moderation_terms). */
export class ModerationTermStore implements TermSource {
  constructor(private readonly orm: Orm) {}

  async list(): Promise<ModerationTermView[]> {
    const rows = await this.orm.em
      .fork()
      .find(ModerationTerm, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(view);
  }

  /** Adds a term; one that normalises like a term of the same kind already there -> 409 CONFLICT. */
  async create(input: NewModerationTerm): Promise<ModerationTermView> {
    const em = this.orm.em.fork();
    const entity = em.create(ModerationTerm, {
      id: crypto.randomUUID(),
      term: input.term,
      normalised: normaliseTerm(input.term),
      kind: input.kind,
      language: input.language ?? null,
    });
    try {
      await em.flush();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const existing = await this.orm.em
        .fork()
        .findOne(ModerationTerm, { kind: input.kind, normalised: entity.normalised });
      throw new AppError(
        'CONFLICT',
        `the ${input.kind} list already has ${JSON.stringify(existing?.term ?? input.term)}, which normalises the same way`,
        existing ? { existing: view(existing) } : undefined,
      );
    }
    return view(entity);
  }

  /** Deletes a term; unknown id -> 404. */
  async remove(id: string): Promise<ModerationTermView> {
    const em = this.orm.em.fork();
    const entity = await em.findOne(ModerationTerm, { id });
    if (!entity) throw new AppError('NOT_FOUND', `no moderation term with id ${id}`);
    em.remove(entity);
    await em.flush();
    return view(entity);
  }

  /** A digest of every id: one index-only scan of a small table, cheap enough to run every second. */
  async revision(): Promise<string> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ revision: string }[]>(
        `select count(*) || ':' || coalesce(md5(string_agg(id::text, ',' order by id)), '') as revision from moderation_terms`,
      );
    return rows[0]?.revision ?? '';
  }
}

/** Postgres unique_violation, as MikroORM passes it on (the gateway does not depend on MikroORM itself). */
const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | undefined)?.code === '23505';

function view(entity: ModerationTerm): ModerationTermView {
  return {
    id: entity.id,
    term: entity.term,
    kind: entity.kind,
    language: entity.language ?? null,
    created_at: entity.createdAt.toISOString(),
  };
}
