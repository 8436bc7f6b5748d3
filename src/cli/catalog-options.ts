import type { CatalogOptions, Format } from '../catalog/types.js';
import type { Preset } from '../catalog/presets/index.js';
import { UsageError } from '../errors.js';

/** The catalog-reading flags, as commander collects them (shared by every command that reads a catalog). */
export interface CatalogFlags {
  format?: Format;
  delimiter?: string;
  jsonPath?: string;
  listSeparator?: string;
  map: string[];
  mapping?: string;
  preset?: Preset;
  sourceHeader: string[];
  s3Endpoint?: string;
}

/** The catalog options of the flags; the mapping file is read and every renamed field checked here, before any source. */
export async function catalogOptionsFrom(flags: CatalogFlags): Promise<CatalogOptions> {
  const { fieldMapOf } = await import('../catalog/mapping/map-options.js');
  const { map, mapFrom } = await fieldMapOf(flags.mapping, flags.map);
  if (flags.listSeparator === '') throw new UsageError('--list-separator must not be empty');
  const options: CatalogOptions = {
    ...(flags.format === undefined ? {} : { format: flags.format }),
    ...(flags.delimiter === undefined ? {} : { delimiter: flags.delimiter }),
    ...(flags.jsonPath === undefined ? {} : { jsonPath: flags.jsonPath }),
    ...(flags.listSeparator === undefined ? {} : { listSeparator: flags.listSeparator }),
    ...(Object.keys(map).length === 0 ? {} : { map }),
    ...(Object.keys(mapFrom).length === 0 ? {} : { mapFrom }),
    ...(flags.preset === undefined ? {} : { preset: flags.preset }),
    ...(flags.sourceHeader.length === 0 ? {} : { sourceHeaders: flags.sourceHeader }),
    ...(flags.s3Endpoint === undefined ? {} : { s3Endpoint: flags.s3Endpoint }),
  };
  const { checkCatalogOptions } = await import('../catalog/open-catalog.js');
  checkCatalogOptions(options);
  return options;
}
