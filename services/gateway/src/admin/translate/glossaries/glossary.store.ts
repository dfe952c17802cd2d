import { Glossary, GlossaryDeletion, nextGlossaryVersion, type Orm } from '@tp/db';
import { AppError } from '@tp/runtime';
import type { GlossaryEntry } from '@tp/translation';

/** A glossary as the admin API lists it. */
export interface GlossarySummary {
  readonly id: string;
  readonly name: string;
  readonly source_lang: string;
  readonly target_lang: string;
  readonly entry_count: number;
  readonly version: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface GlossaryView extends GlossarySummary {
  entries: GlossaryEntry[];
}

export interface NewGlossary {
  readonly name: string;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly entries: readonly GlossaryEntry[];
}

export interface GlossaryChange {
  readonly name?: string | undefined;
  readonly entries?: readonly GlossaryEntry[] | undefined;
}

/** Glossaries in Postgres (table glossaries), one a language pair. */
export class GlossaryStore {
  constructor(private readonly orm: Orm) {}

  async list(): Promise<GlossarySummary[]> {
    const rows = await this.orm.em
      .fork()
      .find(Glossary, {}, { orderBy: { sourceLang: 'asc', targetLang: 'asc' } });
    return rows.map(summary);
  }

  async get(id: string): Promise<GlossaryView> {
    return view(await this.find(this.orm.em.fork(), id));
  }

  /** A second glossary for a pair -> 409 CONFLICT naming the one there. */
  async create(input: NewGlossary): Promise<GlossaryView> {
    const em = this.orm.em.fork();
    const entity = em.create(Glossary, {
      id: crypto.randomUUID(),
      name: input.name,
      sourceLang: input.sourceLang,
      targetLang: input.targetLang,
      entries: [...input.entries],
      entryCount: input.entries.length,
      version: await this.nextVersion(),
    });
    try {
      await em.flush();
    } catch (err) {
      if ((err as { code?: unknown }).code !== '23505') throw err;
      const existing = await this.orm.em
        .fork()
        .findOne(Glossary, { sourceLang: input.sourceLang, targetLang: input.targetLang });
      throw new AppError(
        'CONFLICT',
        `${input.sourceLang} -> ${input.targetLang} already has a glossary; update it (PUT) or delete it first`,
        existing ? { existing: summary(existing) } : undefined,
      );
    }
    return view(entity);
  }

  /** Replaces the name, the entries or both; every update gets a new version. */
  async update(id: string, change: GlossaryChange): Promise<GlossaryView> {
    const em = this.orm.em.fork();
    const entity = await this.find(em, id);
    if (change.name !== undefined) entity.name = change.name;
    if (change.entries !== undefined) {
      entity.entries = [...change.entries];
      entity.entryCount = change.entries.length;
    }
    entity.version = await this.nextVersion();
    await em.flush();
    return view(entity);
  }

  /**
   * Deletes the glossary and, in the same transaction, records the deletion (glossary_deletions): the
   * translator then deletes its copies at DeepL (services/translator/src/glossary/glossary-deletions.ts).
   */
  async remove(id: string): Promise<GlossarySummary> {
    const em = this.orm.em.fork();
    const entity = await this.find(em, id);
    em.remove(entity);
    em.create(GlossaryDeletion, { glossaryId: entity.id, deletedAt: new Date() });
    await em.flush();
    return summary(entity);
  }

  private async find(em: ReturnType<Orm['em']['fork']>, id: string): Promise<Glossary> {
    const entity = await em.findOne(Glossary, { id });
    if (!entity) throw new AppError('NOT_FOUND', `no glossary with id ${id}`);
    return entity;
  }

  /** A version that never repeats for the pair (nextGlossaryVersion). */
  private nextVersion(): Promise<number> {
    return nextGlossaryVersion(this.orm.em.fork());
  }
}

function summary(entity: Glossary): GlossarySummary {
  return {
    id: entity.id,
    name: entity.name,
    source_lang: entity.sourceLang,
    target_lang: entity.targetLang,
    entry_count: entity.entryCount,
    version: entity.version,
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
  };
}

const view = (entity: Glossary): GlossaryView => ({
  ...summary(entity),
  entries: entity.entries.map(({ source, target }) => ({ source, target })),
});
