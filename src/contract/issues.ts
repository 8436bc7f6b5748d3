import type { z } from 'zod';

/** One problem with one field, written for the person who owns the data. */
export interface FieldIssue {
  /** Dotted path with list indexes, e.g. `images_source[1]` or `overrides.condition`. */
  path: string;
  message: string;
}

/** `images_source.1` style zod paths rendered as `images_source[1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out || '(record)';
}

export function issuesFromZod(error: z.ZodError): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: formatPath([...issue.path, key]), message: 'is not a field of the request' });
      continue;
    }
    const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
    // zod names a class by its constructor: a number kept as written (JsonNumber) is a number to the catalog's owner.
    const message = missing ? 'is required' : issue.message.replace(/received JsonNumber$/, 'received number');
    issues.push({ path: formatPath(issue.path), message });
  }
  return issues;
}
