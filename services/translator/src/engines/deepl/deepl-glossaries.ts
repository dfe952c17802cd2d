/**
 * DeepL's own glossary API (`/v2/glossaries`) for the DeepL engine: a glossary version is created at
 * DeepL once, its `glossary_id` is held per version (a bounded map), and versions it supersedes are
 * deleted at DeepL, best effort. DeepL glossaries are immutable, so a new version is a new glossary.
 * Before creating one, the account's list is read: a glossary of that version made by an earlier
 * run or another replica (same name, `tp <id>:<version>`) is used instead, and older versions of the
 * same glossary found there are deleted, so restarts and replicas do not pile glossaries up.
 * Glossaries deleted in our admin API are deleted at DeepL through `removeDeleted`, every version
 * listed under their id (glossary-deletions.ts calls it with the ids Postgres holds as deleted).
 */
import { z } from 'zod';

import type { EngineError } from '../engine.js';
import { GlossaryNotAppliedError, type EngineGlossary } from '../engine.js';
import { endpoint, postJson, send, stringField, type HttpReply } from '../http-errors.js';

/** How long creating a glossary at DeepL may take before the requests waiting for it mask instead. */
const CREATE_TIMEOUT_MS = 10_000;

/** Glossary ids held at once; beyond it the oldest is forgotten (and deleted at DeepL). */
export const DEEPL_GLOSSARIES_HELD = 64;

/** Deleted glossary ids remembered, so that one is not asked to be deleted twice. */
const DELETED_HELD = 256;

const createdReply = z.object({ glossary_id: z.string().min(1) });

const listedGlossary = z.object({
  glossary_id: z.string().min(1),
  name: z.string(),
  ready: z.boolean(),
  source_lang: z.string(),
  target_lang: z.string(),
});
const listReply = z.object({ glossaries: z.array(z.unknown()) });
type ListedGlossary = z.infer<typeof listedGlossary>;

export interface DeepLGlossaries {
  /**
   * The DeepL glossary id for this glossary version, created at DeepL on first use. Throws
   * GlossaryNotAppliedError when DeepL does not take it (the chain masks the terms instead).
   */
  idFor(
    glossary: EngineGlossary,
    sourceLang: string,
    targetLang: string,
    signal: AbortSignal,
  ): Promise<string>;
  /** DeepL no longer knows this version's glossary (deleted elsewhere): the next call creates it again. */
  forget(key: string): void;
  /**
   * Deletes at DeepL every version listed in the account of these glossaries (ids of glossaries
   * deleted in our API; other names are never touched). Answers the ids of which no version is left
   * there (each listed one deleted now, or a 404), or undefined when DeepL did not list the account.
   */
  removeDeleted(glossaryIds: readonly string[]): Promise<ReadonlySet<string> | undefined>;
}

interface Held {
  readonly key: string;
  readonly id: Promise<string>;
}

/** Glossary ids at DeepL by version key (`<id>:<version>`), for one API key. */
export function createDeepLGlossaries(
  base: string,
  authorization: string,
  held = DEEPL_GLOSSARIES_HELD,
): DeepLGlossaries {
  const byKey = new Map<string, Held>();
  const url = endpoint(base, '/v2/glossaries');
  // Ids this process asked DeepL to delete (the latest DELETED_HELD): each is asked once.
  const deleted = new Set<string>();
  const deleteOnce = (id: string): void => {
    if (deleted.has(id)) return;
    deleted.add(id);
    if (deleted.size > DELETED_HELD) deleted.delete(deleted.values().next().value as string);
    void deleteAtDeepL(url, authorization, id);
  };

  const remove = (entry: Held): void => {
    byKey.delete(entry.key);
    entry.id.then(deleteOnce, () => undefined);
  };

  return {
    idFor(glossary, sourceLang, targetLang, signal) {
      const found = byKey.get(glossary.key);
      if (found) return untilAborted(found.id, signal);
      // A new version of the same glossary supersedes the old one at DeepL.
      const family = familyOf(glossary.key);
      for (const entry of [...byKey.values()]) if (familyOf(entry.key) === family) remove(entry);
      const oldest = byKey.values().next();
      if (byKey.size >= held && !oldest.done) remove(oldest.value);

      const entry: Held = {
        key: glossary.key,
        // Its own deadline, not the first caller's signal: concurrent requests of the pair share it.
        id: adoptOrCreate({ url, authorization, deleteOnce }, glossary, sourceLang, baseCode(targetLang)),
      };
      byKey.set(glossary.key, entry);
      // DeepL's 400 (e.g. a pair it has no glossaries for) is held for the version, so its requests
      // do not each try again; any other failure is not, and the next request tries again.
      entry.id.catch((error: unknown) => {
        if (error instanceof GlossaryRefusedError) return;
        if (byKey.get(glossary.key) === entry) byKey.delete(glossary.key);
      });
      return untilAborted(entry.id, signal);
    },
    forget(key) {
      byKey.delete(key);
    },
    async removeDeleted(glossaryIds) {
      const wanted = new Set(glossaryIds);
      for (const entry of [...byKey.values()]) if (wanted.has(familyOf(entry.key))) byKey.delete(entry.key);
      const listed = await listAtDeepL(url, authorization);
      if (!listed) return undefined;
      const left = new Set<string>();
      const deletions = listed.flatMap((other) => {
        const family = familyOf(keyOfName(other.name) ?? '');
        if (!wanted.has(family)) return [];
        return [
          deleteAtDeepL(url, authorization, other.glossary_id).then((gone) => {
            if (!gone) left.add(family);
          }),
        ];
      });
      await Promise.all(deletions);
      return new Set(glossaryIds.filter((id) => !left.has(id)));
    },
  };
}

/**
 * The id of this version's glossary already at DeepL (same name and languages, ready), or of a new
 * one; older versions of the same glossary listed there are deleted, best effort.
 */
async function adoptOrCreate(
  { url, authorization, deleteOnce }: { url: string; authorization: string; deleteOnce(id: string): void },
  glossary: EngineGlossary,
  sourceLang: string,
  targetLang: string,
): Promise<string> {
  const listed = (await listAtDeepL(url, authorization)) ?? [];
  const family = familyOf(glossary.key);
  const version = versionOf(glossary.key);
  for (const other of listed) {
    const key = keyOfName(other.name);
    if (key && familyOf(key) === family && versionOf(key) < version) {
      deleteOnce(other.glossary_id);
    }
  }
  const same = listed.find(
    (other) =>
      other.name === glossaryName(glossary.key) &&
      other.ready &&
      other.source_lang.toUpperCase() === sourceLang.toUpperCase() &&
      other.target_lang.toUpperCase() === targetLang.toUpperCase(),
  );
  return same?.glossary_id ?? createAtDeepL(url, authorization, glossary, sourceLang, targetLang);
}

/** The account's glossaries, or undefined when DeepL does not list them. */
async function listAtDeepL(url: string, authorization: string): Promise<ListedGlossary[] | undefined> {
  const signal = AbortSignal.timeout(CREATE_TIMEOUT_MS);
  const reply = await send('deepl', url, { method: 'GET', headers: { authorization } }, signal).catch(
    () => undefined,
  );
  const parsed = reply?.status === 200 ? listReply.safeParse(reply.json) : undefined;
  if (!parsed?.success) return undefined;
  return parsed.data.glossaries.flatMap((entry) => {
    const glossary = listedGlossary.safeParse(entry);
    return glossary.success ? [glossary.data] : [];
  });
}

/** `POST /v2/glossaries` with the entries as TSV; the glossary id of the 201 answer. */
async function createAtDeepL(
  url: string,
  authorization: string,
  glossary: EngineGlossary,
  sourceLang: string,
  targetLang: string,
): Promise<string> {
  const signal = AbortSignal.timeout(CREATE_TIMEOUT_MS);
  const body = {
    name: glossaryName(glossary.key),
    source_lang: sourceLang,
    target_lang: targetLang,
    entries: glossary.entries.map((entry) => `${entry.source}\t${entry.target}`).join('\n'),
    entries_format: 'tsv',
  };
  let reply: HttpReply;
  try {
    reply = await postJson('deepl', url, body, signal, { authorization });
  } catch (error) {
    throw new GlossaryNotAppliedError('deepl', `glossary not created: ${String(error)}`, { cause: error });
  }
  const parsed = createdReply.safeParse(reply.json);
  if (reply.status !== 201 || !parsed.success) {
    const detail = stringField(reply.json, 'message') ?? 'unexpected answer';
    const message = `glossary not created: HTTP ${reply.status}: ${detail}`;
    throw reply.status === 400
      ? new GlossaryRefusedError('deepl', message)
      : new GlossaryNotAppliedError('deepl', message);
  }
  return parsed.data.glossary_id;
}

/** DeepL will not take this glossary version as it is (400): held, not tried again. */
class GlossaryRefusedError extends GlossaryNotAppliedError {}

/** `DELETE /v2/glossaries/{id}`: true when it is gone (a 2xx, or 404: not there); never throws. */
async function deleteAtDeepL(url: string, authorization: string, glossaryId: string): Promise<boolean> {
  const signal = AbortSignal.timeout(CREATE_TIMEOUT_MS);
  const reply = await send(
    'deepl',
    `${url}/${encodeURIComponent(glossaryId)}`,
    { method: 'DELETE', headers: { authorization } },
    signal,
  ).catch(() => undefined);
  return reply !== undefined && ((reply.status >= 200 && reply.status < 300) || reply.status === 404);
}

/**
 * A translate answer that says the glossary is gone or does not fit (404, or a 400 naming the
 * glossary): the terms are masked instead. Undefined for any other answer.
 */
export function glossaryRefusal(reply: HttpReply): EngineError | undefined {
  const message = stringField(reply.json, 'message') ?? '';
  // not user text: DeepL's own error message
  if (reply.status === 404 || (reply.status === 400 && /glossary/i.test(message))) {
    return new GlossaryNotAppliedError(
      'deepl',
      `glossary not applied: HTTP ${reply.status} ${message}`.trim(),
    );
  }
  return undefined;
}

/** `<glossary id>` of a version key `<glossary id>:<version>`. */
const familyOf = (key: string): string => key.slice(0, key.lastIndexOf(':'));

/** `<version>` of a version key `<glossary id>:<version>` (NaN when it has none). */
const versionOf = (key: string): number => Number(key.slice(key.lastIndexOf(':') + 1));

/** The name a glossary version gets at DeepL; its key back from a listed name, or undefined. */
const NAME_PREFIX = 'tp ';
const glossaryName = (key: string): string => `${NAME_PREFIX}${key}`;
const keyOfName = (name: string): string | undefined =>
  name.startsWith(NAME_PREFIX) && name.includes(':') ? name.slice(NAME_PREFIX.length) : undefined;

/** DeepL glossaries take a target without a variant (`EN`, not `EN-US`) and apply to every variant. */
const baseCode = (code: string): string => code.split('-')[0] ?? code;

/**
 * The `glossary_id` and `source_lang` parameters for a request that carries a glossary; DeepL requires
 * a source language with a glossary, so an `auto` request cannot use one (the chain masks instead).
 */
export async function glossaryParams(
  glossaries: DeepLGlossaries,
  glossary: EngineGlossary | undefined,
  sourceLang: string | undefined,
  targetLang: string,
  signal: AbortSignal,
): Promise<{ glossary_id?: string }> {
  if (!glossary) return {};
  if (!sourceLang) throw new GlossaryNotAppliedError('deepl', 'a DeepL glossary needs a source language');
  return { glossary_id: await glossaries.idFor(glossary, sourceLang, targetLang, signal) };
}

/** `promise`, or the signal's reason as soon as it aborts (the shared work goes on for the others). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
