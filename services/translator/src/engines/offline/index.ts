export {
  createOfflineEngine,
  OfflineEngine,
  offlineSessionOptions,
  type OfflineEngineOptions,
  type OfflineModelStatus,
} from './offline.engine.js';
export { discoverModels, type InstalledModel } from './discover-models.js';
export { parseModelFolderName, pickOnnxFiles, type LanguagePair } from './model-folder.js';
