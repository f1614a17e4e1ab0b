export * from './secret-box.js';
export * from './key-ring-setting.js';
