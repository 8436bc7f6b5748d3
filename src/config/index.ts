export * from './options.js';
export * from './resolve.js';
export * from './store.js';
export * from '../did-you-mean.js';
export * from './marketplace-settings.js';
