import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { insertOutboxRows, writeOutboxRows, type EncodedOutboxRow, type Orm } from '@tp/db';
import { contentChangedEntry, recordContentReports, type NewContentReport } from '@tp/pipeline';
import { AppError, Coalescer, type ItemOutcome } from '@tp/runtime';
import type { EventCodec } from '@tp/schemas';

import { assertTypeOwner } from '../../shared/reported-entity.js';

import { assertDeliverable, type TopicLimit } from './deliverable-size.js';
import { ReportContentChangeCommand, type ChangeAccepted } from './report-change.command.js';

export interface ReportChangeDeps {
  readonly orm: Orm;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
  /** The topics' max.message.bytes; a change that could not travel is refused (deliverable-size.ts). */
  readonly topicLimit?: TopicLimit;
}

/** A checked report, its event encoded, waiting for its transaction. */
interface AcceptedReport {
  readonly row: EncodedOutboxRow;
  readonly report: NewContentReport;
}

/**
 * Reports written together while one transaction runs: the reports of a bulk load share their
 * round trips to Postgres (BEGIN, the owner check, two INSERTs, COMMIT) instead of each making
 * them. At most this many in one transaction.
 */
const MAX_REPORTS_PER_TRANSACTION = 64;

/**
 * Checks that the change can travel through the pipeline (413 CONTENT_TOO_LARGE otherwise) and that
 * the entity type belongs to the reporting module, and writes ContentChanged to the outbox with the
 * report's tracking row, in one transaction; the worker's relay publishes it and the planner stores
 * the source. Reports that come while a transaction runs go together in the next (group commit);
 * alone, a report is its own transaction at once. A report refused (the type is another module's)
 * is refused alone; a transaction that fails is tried again report by report, so a report fails
 * only for itself.
 */
export class ReportContentChangeHandler implements ICommandHandler<ReportContentChangeCommand> {
  private readonly transactions = new Coalescer<AcceptedReport, ChangeAccepted>(
    (reports) => this.writeEach(reports),
    { maxBatch: MAX_REPORTS_PER_TRANSACTION, maxInFlight: 1 },
  );

  constructor(private readonly deps: ReportChangeDeps) {}

  async execute({ change, correlationId, apiKeyId }: ReportContentChangeCommand): Promise<ChangeAccepted> {
    const entry = contentChangedEntry(change, this.deps.topicPrefix, { correlationId, causationId: null });
    if (this.deps.topicLimit) {
      await assertDeliverable(change, entry, this.deps.codec, this.deps.topicPrefix, this.deps.topicLimit);
    }
    const { module, entityType, entityId, sourceVersion } = change;
    const trackingId = entry.event.eventId;
    const report: NewContentReport = {
      trackingId,
      apiKeyId,
      kind: 'change',
      module,
      entityType,
      entityId,
      sourceVersion,
    };
    // Encoded here, under the request's `outbox write` span, which the event's headers carry on.
    return writeOutboxRows(this.deps.codec, [entry], ([row]) =>
      this.transactions.submit({ row: row as EncodedOutboxRow, report }),
    );
  }

  /** The reports in one transaction; when it fails, each in its own, so one fails only for itself. */
  private async writeEach(reports: readonly AcceptedReport[]): Promise<ItemOutcome<ChangeAccepted>[]> {
    try {
      return await this.writeTogether(reports);
    } catch (err) {
      if (reports.length === 1) return [{ ok: false, error: err }];
      const outcomes: ItemOutcome<ChangeAccepted>[] = [];
      for (const report of reports) {
        const [outcome] = await this.writeTogether([report]).catch((error: unknown) => [
          { ok: false as const, error },
        ]);
        outcomes.push(outcome ?? { ok: false, error: new Error('a report was written without an outcome') });
      }
      return outcomes;
    }
  }

  /** One transaction: the owner of each type once, then the events and tracking rows of the others. */
  private writeTogether(reports: readonly AcceptedReport[]): Promise<ItemOutcome<ChangeAccepted>[]> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const refused = new Map<string, unknown>();
      for (const { module, entityType } of uniqueTypes(reports)) {
        await assertTypeOwner(em, module, entityType).catch((err: unknown) => {
          if (!(err instanceof AppError && err.code === 'MODULE_CONFLICT')) throw err;
          refused.set(`${module}\u0000${entityType}`, err);
        });
      }
      const outcomes = reports.map(({ report }): ItemOutcome<ChangeAccepted> => {
        const error = refused.get(`${report.module}\u0000${report.entityType}`);
        return error ? { ok: false, error } : { ok: true, value: { trackingId: report.trackingId } };
      });
      const kept = reports.filter((_, index) => outcomes[index]?.ok);
      await insertOutboxRows(
        em,
        kept.map(({ row }) => row),
      );
      await recordContentReports(
        em,
        kept.map(({ report }) => report),
      );
      return outcomes;
    });
  }
}

/** Each (module, type) pair the reports name, once. */
function uniqueTypes(reports: readonly AcceptedReport[]): { module: string; entityType: string }[] {
  const pairs = new Map<string, { module: string; entityType: string }>();
  for (const { report } of reports) {
    pairs.set(`${report.module}\u0000${report.entityType}`, {
      module: report.module,
      entityType: report.entityType,
    });
  }
  return [...pairs.values()];
}

// Decorators applied as calls: the workspace compiles without experimentalDecorators (see
// commands/command-bus.ts), and this is exactly what `@CommandHandler(...)` on the class does.
CommandHandler(ReportContentChangeCommand)(ReportContentChangeHandler);
