import { AppError } from '@tp/runtime';

import { HypothesisTooLongError, type ModelSlot } from '../model/index.js';
import type { ResultCache } from './result-cache.js';
import { hypothesisFor, rankLabels, zeroShotScores, type Ranking } from './scoring.js';

export interface ClassifyInput {
  readonly text: string;
  readonly labels: readonly string[];
  readonly multiLabel: boolean;
  readonly template: string;
}

/** The zero-shot answer (`sequence` is the text, as the Hugging Face pipeline names it). */
export interface Classification extends Ranking {
  readonly sequence: string;
}

export interface ClassifyOutcome {
  readonly result: Classification;
  /** Answered from the Redis result cache. */
  readonly cached: boolean;
  /** The model's id (folder name). */
  readonly model: string;
}

/**
 * Zero-shot classification: the cache, else one pair (text, template with the label) per candidate
 * label, all in one model run, scored as the Hugging Face pipeline scores them.
 */
export class ClassifyText {
  constructor(
    private readonly slot: ModelSlot,
    private readonly cache: ResultCache,
  ) {}

  async execute(input: ClassifyInput): Promise<ClassifyOutcome> {
    const model = this.slot.require();
    const key = {
      model: `${model.info.id}@${model.info.fingerprint}`,
      template: input.template,
      labels: input.labels,
      multiLabel: input.multiLabel,
      text: input.text,
    };
    const hit = await this.cache.read(key);
    if (hit) return { result: { sequence: input.text, ...hit }, cached: true, model: model.info.id };

    const hypotheses = input.labels.map((label) => hypothesisFor(input.template, label));
    const rows = await model.logits(input.text, hypotheses).catch((err: unknown) => {
      if (err instanceof HypothesisTooLongError) throw hypothesisTooLong(err);
      throw err;
    });
    const ranking = rankLabels(input.labels, zeroShotScores(rows, model.settings, input.multiLabel));
    await this.cache.store(key, ranking);
    return { result: { sequence: input.text, ...ranking }, cached: false, model: model.info.id };
  }
}

/** A template and label so long that no text fits beside them: the request's fault, so a 400. */
function hypothesisTooLong(err: HypothesisTooLongError): AppError {
  const message = `${err.message}; shorten the label or the template`;
  return new AppError('VALIDATION_FAILED', message, {
    issues: [{ path: 'body.candidate_labels', message, code: 'too_big' }],
  });
}
