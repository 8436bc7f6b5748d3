export * from './schemas.js';
export * from './marketplace.js';
export * from './issues.js';
