export {
  buildTinyModel,
  filesHash,
  tinyModelFiles,
  STAMP_FILE,
  type BuildResult,
  type TinyModelOptions,
} from './build-tiny-model.js';
export { EN_DE_LEXICON, LEXICONS, ZH_EN_LEXICON, type Lexicon } from './lexicon.js';
export { TEST_MODEL_MARKER } from './model-config.js';
