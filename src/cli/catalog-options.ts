import type { CatalogOptions, Format } from '../catalog/types.js';
import type { Preset } from '../catalog/presets/index.js';
import { UsageError, type Setting } from '../errors.js';

/** A mapping file names a few dozen columns: one this large (or /dev/zero) is refused before it is held. */
const MAX_MAPPING_BYTES = 1024 * 1024;

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

/** Commander collector of a repeatable flag. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The catalog options of the flags; the mapping file is read and every renamed field checked here, before any source. */
export async function catalogOptionsFrom(flags: CatalogFlags): Promise<CatalogOptions> {
  const { parseMapFlags, parseMappingJson } = await import('../catalog/mapping/fields.js');
  let map: Record<string, string> = {};
  const mapFrom: Record<string, Setting> = {};
  if (flags.mapping !== undefined) {
    const { readSmallText } = await import('../fs/small-text.js');
    let text: string;
    try {
      text = await readSmallText(flags.mapping, MAX_MAPPING_BYTES);
    } catch (error) {
      throw new UsageError(`--mapping ${flags.mapping}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    map = parseMappingJson(text, flags.mapping);
    for (const field of Object.keys(map)) mapFrom[field] = { key: 'mapping', value: `${flags.mapping} (${field})` };
  }
  const fromFlags = parseMapFlags(flags.map);
  // A --map flag wins over the file; errors then name the map setting (the default).
  for (const field of Object.keys(fromFlags)) delete mapFrom[field];
  map = { ...map, ...fromFlags };
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
