export * from './listings-client.js';
export * from './classify.js';
export * from './endpoint.js';
export * from './error-message.js';
