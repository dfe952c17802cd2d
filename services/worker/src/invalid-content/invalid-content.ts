import type { Orm } from '@tp/db';
import {
  brokenEntityNameRules,
  entitiesWithoutSources,
  entitiesWithSources,
  purgeEntities,
  type PurgedRows,
  type StoredEntityName,
} from '@tp/pipeline';

/** A stored entity the content rules refuse, with the rules it breaks. */
export interface InvalidEntity extends StoredEntityName {
  readonly broken: string;
}

/** Entities read per page of source_contents, and purged per transaction. */
const PAGE = 1000;

/** Every stored entity whose names the content rules refuse, in (type, id) order. */
export async function findInvalidContent(orm: Orm): Promise<InvalidEntity[]> {
  const em = orm.em.fork();
  const invalid: InvalidEntity[] = [];
  const check = (entity: StoredEntityName) => {
    // Content stored before the planner applied the rules (a type `Vendor` produced straight to
    // Kafka): the API can neither read nor delete it.
    const broken = brokenEntityNameRules(entity);
    if (broken) invalid.push({ ...entity, broken });
  };
  for (let after: StoredEntityName | undefined; ;) {
    const page = await entitiesWithSources(em, after, PAGE);
    page.forEach(check);
    after = page.at(-1);
    if (page.length < PAGE) break;
  }
  (await entitiesWithoutSources(em)).forEach(check);
  return invalid;
}

/** Removes everything stored under the entities, a transaction per PAGE of them; the rows removed. */
export async function purgeInvalidContent(orm: Orm, entities: readonly InvalidEntity[]): Promise<PurgedRows> {
  const total = { sources: 0, translations: 0, tombstones: 0, reports: 0 };
  for (let at = 0; at < entities.length; at += PAGE) {
    const batch = entities.slice(at, at + PAGE);
    const purged = await orm.em.fork().transactional((em) => purgeEntities(em, batch));
    total.sources += purged.sources;
    total.translations += purged.translations;
    total.tombstones += purged.tombstones;
    total.reports += purged.reports;
  }
  return total;
}
