/**
 * One kind of failure: entries whose error code, original topic and consumer group equal the given
 * fields (a field left out matches anything).
 */
export interface DeadLetterFilter {
  readonly code?: string;
  readonly topic?: string;
  readonly group?: string;
}

/**
 * Which dead letters an operator acts on: some ids, the ones that failed in a time range (`from`
 * inclusive, `to` exclusive, on failed_at), or every entry present when the operation starts; a range
 * or `all` may be narrowed to one kind of failure with `filter`.
 */
export type DeadLetterSelection =
  | { readonly ids: readonly number[] }
  | { readonly from: Date; readonly to: Date; readonly filter?: DeadLetterFilter }
  | { readonly all: true; readonly filter?: DeadLetterFilter };

/** Entries of one kind (error code, original topic, consumer group) and how many the index holds. */
export interface DeadLetterKind {
  readonly code: string;
  readonly topic: string;
  readonly group: string;
  readonly count: number;
}

/** Reported after each batch: `done` entries handled of `total` selected at the start. */
export interface BulkProgress {
  readonly done: number;
  readonly total: number;
}

export type OnProgress = (progress: BulkProgress) => void;

export interface ReplayOutcome {
  /** Entries the selection matched when the replay started. */
  readonly selected: number;
  /** Entries put in the outbox (and removed from the index). */
  readonly replayed: number;
  /** Entries that left the index meanwhile (replayed, purged or evicted by someone else). */
  readonly gone: number;
  /** Entries left in the index because the outbox cannot carry their key as it was. */
  readonly refused: readonly { readonly id: number; readonly reason: string }[];
}

export interface PurgeOutcome {
  readonly selected: number;
  readonly purged: number;
  readonly gone: number;
}

/** Describes a selection in words, for logs and CLI summaries. */
export function describeSelection(selection: DeadLetterSelection): string {
  if ('ids' in selection) {
    const { ids } = selection;
    return ids.length <= 10 ? `ids ${ids.join(', ')}` : `${ids.length} ids (${ids[0]}, ${ids[1]}, ...)`;
  }
  const kind = describeFilter(selection.filter);
  if ('all' in selection) return kind ? `all entries with ${kind}` : 'all entries';
  const range = `failed from ${selection.from.toISOString()} to ${selection.to.toISOString()}`;
  return kind ? `${range} with ${kind}` : range;
}

/** `code X, topic Y, group Z` for the fields given; empty when none is. */
export function describeFilter(filter: DeadLetterFilter | undefined): string {
  if (!filter) return '';
  return (['code', 'topic', 'group'] as const)
    .filter((field) => filter[field] !== undefined)
    .map((field) => `${field} ${filter[field]}`)
    .join(', ');
}
