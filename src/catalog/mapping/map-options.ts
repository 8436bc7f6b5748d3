import { UsageError, type Setting } from '../../errors.js';
import { parseMapFlags, parseMappingJson, type FieldMap } from './fields.js';

/** A mapping file names a few dozen columns: one this large (or /dev/zero) is refused before it is held. */
const MAX_MAPPING_BYTES = 1024 * 1024;

/**
 * The field map of a run: the mapping file's (read and checked here, before any source), then the `map` entries
 * (`field=Column`) over it. `mapFrom` says which fields came from the file, so that an error about one names it.
 */
export async function fieldMapOf(mapping: string | undefined, entries: readonly string[]): Promise<{ map: FieldMap; mapFrom: Record<string, Setting> }> {
  let map: FieldMap = {};
  const mapFrom: Record<string, Setting> = {};
  if (mapping !== undefined) {
    const { readSmallText } = await import('../../fs/small-text.js');
    let text: string;
    try {
      text = await readSmallText(mapping, MAX_MAPPING_BYTES);
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UsageError((name) => `${name('mapping')} ${mapping}: cannot read it (${why})`, { setting: { key: 'mapping', value: mapping } });
    }
    map = parseMappingJson(text, mapping);
    for (const field of Object.keys(map)) mapFrom[field] = { key: 'mapping', value: `${mapping} (${field})` };
  }
  const fromEntries = parseMapFlags(entries);
  // An entry wins over the file; errors then name the map setting (the default).
  for (const field of Object.keys(fromEntries)) delete mapFrom[field];
  return { map: { ...map, ...fromEntries }, mapFrom };
}
