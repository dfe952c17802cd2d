import { PullError } from './pull-error.js';

/** What to fetch for one pair, and where it goes. */
export interface HubModel {
  /** `zh-en`, as typed. */
  readonly pair: string;
  /** Hugging Face repository, `Xenova/opus-mt-zh-en`. */
  readonly repo: string;
  /** Folder name under the models directory, `opus-mt-zh-en`: the offline engine reads the pair from it. */
  readonly folder: string;
}

/**
 * The files of an Optimum Opus-MT export the offline engine needs: q8 encoder and merged decoder
 * (about a quarter of the fp32 size), tokenizer and configs. tokenizer_config.json is small and lets
 * the tokenizer match transformers.js exactly.
 */
export const MODEL_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/encoder_model_quantized.onnx',
  'onnx/decoder_model_merged_quantized.onnx',
] as const;

/** Names we reserve for models that `models:pull` will fetch later. */
const RESERVED: Readonly<Record<string, string>> = {
  nli: 'the NLI model (MoritzLaurer/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7) is not available through models:pull yet',
};

/** Parses `zh-en` (Opus-MT language codes, 2 or 3 letters) into the hub repository and local folder. */
export function hubModelFor(pair: string): HubModel {
  const reserved = RESERVED[pair.toLowerCase()];
  if (reserved) throw new PullError('not-available', reserved);
  const match = /^([a-z]{2,3})-([a-z]{2,3})$/.exec(pair);
  if (!match || match[1] === match[2]) {
    throw new PullError(
      'bad-pair',
      `"${pair}" is not a language pair such as zh-en or en-de (lower-case Opus-MT codes)`,
    );
  }
  return { pair, repo: `Xenova/opus-mt-${pair}`, folder: `opus-mt-${pair}` };
}

/** `{endpoint}/{repo}/resolve/main/{file}`: the hub answers with the file or a redirect to its CDN. */
export function fileUrl(endpoint: string, repo: string, file: string): string {
  return `${endpoint.replace(/\/+$/, '')}/${repo}/resolve/main/${file}`;
}
