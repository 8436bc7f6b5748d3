/** The public catalog API: open a source as a stream of listing drafts. */
export * from './types.js';
export { openCatalog, openCatalogs, checkCatalogOptions } from './open-catalog.js';
export { mapRecords, createRecordMapper, parseMapFlags, parseMappingJson, checkTarget, MAPPABLE_FIELDS, type FieldMap, type MappingOptions } from './mapping/index.js';
export { PRESETS, PRESET_NAMES, presetDrafts, recognisePreset, type Preset, type PresetName, type PresetKind } from './presets/index.js';
