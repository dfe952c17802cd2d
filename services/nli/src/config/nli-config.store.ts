import { LockMode } from '@mikro-orm/core';
import { NliConfig as NliConfigRow, type Orm } from '@tp/db';
import { AppError, type Logger } from '@tp/runtime';

import { validationFailed } from '../http/parse-body.js';
import { configProblems, type ConfigChange, type ModerationConfig } from './moderation-config.js';

/** The singleton row's id. */
const ROW_ID = 1;

/**
 * The NLI configuration, from the nli_config row. Reads are served from an in-process copy at most
 * `maxAgeMs` old, so classification does not cost a query per request, yet a change made through any
 * process applies within that time; one made through this process applies at once. If Postgres cannot
 * be read, the last copy is used (a stale threshold beats no moderation); with no copy, 503.
 */
export class NliConfigStore {
  private copy: { readonly value: ModerationConfig; readonly readAt: number } | undefined;
  private reading: Promise<ModerationConfig> | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly maxAgeMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async current(): Promise<ModerationConfig> {
    if (this.copy && this.now() - this.copy.readAt < this.maxAgeMs) return this.copy.value;
    // Concurrent callers share one query.
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Applies a change in one locked transaction, checks the result and bumps the revision. */
  async update(change: ConfigChange): Promise<ModerationConfig> {
    const value = await this.orm.em.fork().transactional(async (em) => {
      const row = await em.findOne(NliConfigRow, { id: ROW_ID }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!row) throw missingRow();
      const next = { ...toConfig(row), ...change };
      const problems = configProblems(next);
      if (problems.length > 0) throw validationFailed(problems);
      em.assign(row, {
        candidateLabels: [...next.candidateLabels],
        safeLabels: [...next.safeLabels],
        violationThreshold: next.threshold,
        hypothesisTemplate: next.hypothesisTemplate,
        enabled: next.enabled,
        revision: row.revision + 1,
      });
      await em.flush();
      return toConfig(row);
    });
    this.remember(value, this.now());
    return value;
  }

  private async read(): Promise<ModerationConfig> {
    const startedAt = this.now();
    try {
      const row = await this.orm.em.fork().findOne(NliConfigRow, { id: ROW_ID });
      if (!row) throw missingRow();
      const value = toConfig(row);
      this.remember(value, startedAt);
      return this.copy?.value ?? value;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (this.copy) {
        this.logger.warn({ err }, 'cannot read nli_config; using the last copy');
        return this.copy.value;
      }
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'the NLI configuration cannot be read from Postgres');
    }
  }

  /** Keeps the newest revision: a read that started before an update must not bring the old one back. */
  private remember(value: ModerationConfig, readAt: number): void {
    if (this.copy && this.copy.value.revision > value.revision) return;
    this.copy = { value, readAt };
  }
}

function toConfig(row: NliConfigRow): ModerationConfig {
  return {
    candidateLabels: [...row.candidateLabels],
    safeLabels: [...row.safeLabels],
    // MikroORM types a double as string | number (precision); the value is a float8.
    threshold: Number(row.violationThreshold),
    hypothesisTemplate: row.hypothesisTemplate,
    enabled: row.enabled,
    revision: row.revision,
    updatedAt: row.updatedAt,
  };
}

const missingRow = () =>
  new AppError('INTERNAL', 'the nli_config row (id 1) is missing: run the database migrations');
