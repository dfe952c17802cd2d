import { PullError } from './pull-error.js';

/** What to fetch for one model, and where it goes. */
export interface HubModel {
  /** As typed: `zh-en`, or `nli`. */
  readonly name: string;
  /** Hugging Face repository, `Xenova/opus-mt-zh-en`. */
  readonly repo: string;
  /**
   * Folder under the models directory: `opus-mt-zh-en` (the offline engine reads the pair from it), or
   * `nli/<repository name in lower case>` (the nli service's NLI_MODEL_DIR).
   */
  readonly folder: string;
  /** Paths inside the repository, fetched in this order. */
  readonly files: readonly string[];
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

/**
 * The files of an NLI sequence-classification export the nli service reads: config.json (id2label),
 * tokenizer.json, tokenizer_config.json (model_max_length) and the q8 graph (about 339 MB for mDeBERTa;
 * the fp32 `onnx/model.onnx` is 1.1 GB). The sentencepiece model and special_tokens_map.json are not
 * needed: tokenizer.json holds the whole tokenizer.
 */
export const NLI_MODEL_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model_quantized.onnx',
] as const;

/**
 * The multilingual NLI model of the spec. Its own repository carries the ONNX export (`onnx/`, added
 * by Xenova); `Xenova/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7` holds the same files and is the
 * alternative when the original moves.
 */
export const DEFAULT_NLI_REPO = 'MoritzLaurer/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7';

// not user text: a repository name from the command line
const REPO = /^[\w.-]+\/[\w.-]+$/;

/**
 * `zh-en` (Opus-MT language codes, 2 or 3 letters) -> Xenova/opus-mt-zh-en into `opus-mt-zh-en`;
 * `nli` -> the NLI model (`repo`, default DEFAULT_NLI_REPO) into `nli/<repository name in lower case>`.
 */
export function hubModelFor(name: string, repo?: string): HubModel {
  // `..` or `.` as owner or name would climb out of MODELS_DIR once the name becomes a folder.
  if (repo !== undefined && (!REPO.test(repo) || repo.split('/').some((part) => part.startsWith('.')))) {
    throw new PullError('bad-repo', `"${repo}" is not a Hugging Face repository such as owner/name`);
  }
  if (name.toLowerCase() === 'nli') {
    const nliRepo = repo ?? DEFAULT_NLI_REPO;
    const folder = `nli/${(nliRepo.split('/')[1] as string).toLowerCase()}`;
    return { name, repo: nliRepo, folder, files: NLI_MODEL_FILES };
  }
  const match = /^([a-z]{2,3})-([a-z]{2,3})$/.exec(name);
  if (!match || match[1] === match[2]) {
    throw new PullError(
      'bad-pair',
      `"${name}" is neither nli nor a language pair such as zh-en or en-de (lower-case Opus-MT codes)`,
    );
  }
  return { name, repo: repo ?? `Xenova/opus-mt-${name}`, folder: `opus-mt-${name}`, files: MODEL_FILES };
}

/** `{endpoint}/{repo}/resolve/main/{file}`: the hub answers with the file or a redirect to its CDN. */
export function fileUrl(endpoint: string, repo: string, file: string): string {
  // not user text: a configured hub URL
  return `${endpoint.replace(/\/+$/, '')}/${repo}/resolve/main/${file}`;
}
