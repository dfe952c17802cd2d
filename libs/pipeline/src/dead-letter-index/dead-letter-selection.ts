/**
 * Which dead letters an operator acts on: some ids, the ones that failed in a time range (`from`
 * inclusive, `to` exclusive, on failed_at), or every entry present when the operation starts.
 */
export type DeadLetterSelection =
  { readonly ids: readonly number[] } | { readonly from: Date; readonly to: Date } | { readonly all: true };

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
  if ('all' in selection) return 'all entries';
  return `failed from ${selection.from.toISOString()} to ${selection.to.toISOString()}`;
}
