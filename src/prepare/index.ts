export * from './types.js';
export { createPreparer, type Preparer } from './preparer.js';
export { prepareCatalog, prepareDrafts, type IndexedRow } from './prepare-catalog.js';
export { isAbsoluteHttpUrl } from './checks.js';
export { SkuRegistry } from './sku-registry.js';
export { createSettingsCheck, requireSettings, missingSettings, neededSettings, MissingSettingsError, FIRST_ROWS, type RequiredSetting, type SettingsCheck } from './missing-settings.js';
export { FanOut, fanOutDrafts, checkFanOut, defaultMarketplaces } from './fan-out.js';
