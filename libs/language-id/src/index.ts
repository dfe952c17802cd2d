export * from './chinese-script.js';
export * from './language-detector.js';
export * from './script-profile.js';
