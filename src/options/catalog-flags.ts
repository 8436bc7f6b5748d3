import type { FlagSpec } from './spec.js';

/** The options that say how to read a catalog: publish and validate read files, stream reads messages. */
export const CATALOG_FLAGS: readonly FlagSpec[] = [
  {
    name: 'format',
    commands: ['publish', 'validate', 'enqueue'],
    group: 'source',
    key: 'format',
    value: { kind: 'choice', placeholder: 'format', choices: 'formats' },
    default: 'from the extension or Content-Type',
    defaultBelow: true,
    description: 'catalog format; required for stdin when it cannot be sniffed',
  },
  { name: 'delimiter', commands: ['publish', 'validate', 'enqueue'], group: 'source', key: 'delimiter', value: { kind: 'text', placeholder: 'char' }, default: 'sniffed among , ; tab |', defaultBelow: true, description: 'CSV delimiter; "tab" or "\\t" for a tab' },
  { name: 'json-path', commands: ['publish', 'validate', 'enqueue'], group: 'source', key: 'jsonPath', value: { kind: 'text', placeholder: 'key' }, description: 'for JSON: the key of the array of records, e.g. products for {"products": [...]}' },
  { name: 'list-separator', commands: ['publish', 'validate', 'enqueue'], group: 'source', value: { kind: 'text', placeholder: 'text' }, default: '|', description: 'separator of list values inside one cell (images_source)' },
  { name: 'source-header', commands: ['publish', 'validate', 'enqueue'], group: 'source', key: 'sourceHeaders', value: { kind: 'text', placeholder: 'header' }, repeatable: true, description: "'Name: value' header for http(s) sources (not sent to other origins)" },
  { name: 's3-endpoint', commands: ['publish', 'validate', 'enqueue'], group: 'source', value: { kind: 'text', placeholder: 'url' }, env: 'AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL', description: 'endpoint of an S3-compatible store' },
  { name: 'map', commands: ['publish', 'validate', 'enqueue'], group: 'mapping', key: 'map', value: { kind: 'text', placeholder: 'field=Column' }, repeatable: true, description: 'take a listing field from a column of another name' },
  { name: 'mapping', commands: ['publish', 'validate', 'enqueue'], group: 'mapping', key: 'mapping', value: { kind: 'text', placeholder: 'file' }, complete: 'files', description: 'a JSON file of field -> column renames, e.g. {"sku": "Variant SKU"}' },
  { name: 'preset', commands: ['publish', 'validate', 'enqueue'], group: 'mapping', key: 'preset', value: { kind: 'choice', placeholder: 'name', choices: 'presets' }, description: "read a shop system's product export" },
  // A Kafka message is a record with keys, not a row with columns: the same options, worded for it.
  { name: 'map', commands: ['stream'], group: 'mapping', key: 'map', value: { kind: 'text', placeholder: 'field=key' }, repeatable: true, description: 'take a listing field from a message key of another name' },
  { name: 'mapping', commands: ['stream'], group: 'mapping', key: 'mapping', value: { kind: 'text', placeholder: 'file' }, complete: 'files', description: 'a JSON file of field -> key renames' },
  { name: 'list-separator', commands: ['stream'], group: 'mapping', value: { kind: 'text', placeholder: 'text' }, default: '|', description: 'separator of list values inside one string (images_source)' },
  { name: 'preset', commands: ['stream'], group: 'mapping', key: 'preset', value: { kind: 'choice', placeholder: 'name', choices: 'export-presets' }, description: "messages are records of a shop system's export" },
];
