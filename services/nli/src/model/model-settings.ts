/** What the service needs from a model's config.json and tokenizer_config.json. */
export interface ModelSettings {
  /** Output labels by logit index, as config.json's id2label names them. */
  readonly labels: readonly string[];
  /** Logit index of entailment: the first label2id key starting with "entail" (lower-cased). */
  readonly entailment: number;
  /** Logit index of contradiction: the first label2id key starting with "contradict". */
  readonly contradiction: number;
  /** Longest pair in tokens, specials included; longer premises are cut to fit. */
  readonly maxLength: number;
  /** Padding token id, when config.json names one. */
  readonly padId: number | undefined;
  /** config.json carries the `_tp_test_model` marker of the project's tiny models. */
  readonly testModel: boolean;
}

export const TEST_MODEL_MARKER = '_tp_test_model';

/** BERT-family default when neither file says. */
const FALLBACK_MAX_LENGTH = 512;
/** transformers writes 1e30 for "no limit"; anything this large is not a real limit. */
const NO_LIMIT = 1_000_000;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

const positiveInt = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value < NO_LIMIT ? value : undefined;

/**
 * Reads the label layout and limits. Label order differs between NLI models (mDeBERTa: 0 entailment,
 * 1 neutral, 2 contradiction; many others start with contradiction), so it is never assumed.
 * Throws when the model has no entailment or no contradiction label: it is not an NLI model.
 */
export function parseModelSettings(config: unknown, tokenizerConfig: unknown = {}): ModelSettings {
  const cfg = record(config);
  const labels = labelsById(record(cfg.id2label));
  const label2id = Object.entries(record(cfg.label2id)).filter(([, id]) => typeof id === 'number') as [
    string,
    number,
  ][];
  // label2id is authoritative when present (the HF pipeline reads it); id2label otherwise.
  const byName: [string, number][] = label2id.length > 0 ? label2id : labels.map((label, id) => [label, id]);
  const indexOf = (prefix: string) => byName.find(([name]) => name.toLowerCase().startsWith(prefix))?.[1];
  const entailment = indexOf('entail');
  const contradiction = indexOf('contradict');
  if (entailment === undefined || contradiction === undefined) {
    throw new Error(
      `config.json labels (${labels.join(', ') || 'none'}) have no entailment or no contradiction: not an NLI model`,
    );
  }
  if (entailment >= labels.length || contradiction >= labels.length || entailment === contradiction) {
    throw new Error('config.json label2id does not match id2label');
  }
  const maxLength =
    positiveInt(record(tokenizerConfig).model_max_length) ??
    positiveInt(cfg.max_position_embeddings) ??
    FALLBACK_MAX_LENGTH;
  return {
    labels,
    entailment,
    contradiction,
    maxLength,
    padId: typeof cfg.pad_token_id === 'number' ? cfg.pad_token_id : undefined,
    testModel: cfg[TEST_MODEL_MARKER] === true,
  };
}

/** `{"0": "entailment", ...}` -> labels by index; the ids must be 0..n-1. */
function labelsById(id2label: Record<string, unknown>): string[] {
  const entries = Object.entries(id2label);
  const labels: string[] = [];
  for (const [id, label] of entries) {
    const index = Number(id);
    if (!Number.isInteger(index) || index < 0 || index >= entries.length || typeof label !== 'string') {
      throw new Error(`config.json id2label is not a list of labels by index 0..${entries.length - 1}`);
    }
    labels[index] = label;
  }
  if (labels.length < 2) throw new Error('config.json has no id2label with at least two labels');
  return labels;
}

/** Prefers the q8 file (a quarter of the size, close in quality), then full precision; undefined if neither. */
export function pickOnnxFile(fileNames: readonly string[]): string | undefined {
  return ['model_quantized.onnx', 'model.onnx'].find((name) => fileNames.includes(name));
}
