import { createRequire } from 'node:module';
import type { errors, Pool, util } from 'undici';

// undici's index loads all of it (fetch, websocket, cache, mocks: some 110 files, ~100 ms); the client needs three.
// The package has no exports map, so its files can be required directly; the types are the index's.
const require = createRequire(import.meta.url);

export const PoolClass = require('undici/lib/dispatcher/pool.js') as typeof Pool;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof errors;
export const parseHeaders = (require('undici/lib/core/util.js') as typeof util).parseHeaders;
