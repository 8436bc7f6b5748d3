import type { Draft, RecordItem } from '../types.js';

/**
 * One shop system's product export, read as listings: a preset is one file exporting one of these, and one line in
 * PRESET_KINDS (src/catalog/presets/index.ts).
 */
export interface PresetKind {
  /** The name a person chooses it by (`magento`). */
  readonly name: string;
  /** The export as its owner knows it, for messages (`a Magento 2 product export`). */
  readonly label: string;
  /** Columns every such export has: without them the file is not this export (see requireColumns). */
  readonly required: readonly string[];
  /** Columns that together tell this export from any other: a header with all of them is recognised as this one. */
  readonly signature: readonly string[];
  /** The export's records -> one draft per input row, or fewer when rows fold into one listing (Draft.rows). */
  drafts(records: AsyncIterable<RecordItem>): AsyncIterable<Draft>;
}
