import type { CatalogFlags } from '../catalog-options.js';

/** The flags of `listings enqueue`, as commander collects them. */
export interface EnqueueFlags extends CatalogFlags {
  kafkaTls?: boolean;
  batchSize: number;
  compression: 'gzip' | 'none';
  report: string[];
  json?: boolean;
  quiet?: boolean;
  logFormat: 'human' | 'json';
}
