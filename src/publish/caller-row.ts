import type { PreparedRow } from '../prepare/types.js';
import { requestJsonProblem } from '../client/request-json.js';

/**
 * A row a library caller prepared itself (`publishRows` without `prepare`), whose request may be any JavaScript: one
 * that JSON would send otherwise than given (NaN sent as null, a function left out, a BigInt, a cycle, past 64 levels)
 * is an invalid row naming the place, never sent changed. Rows this tool prepares are built from text and need no
 * such look.
 */
export function checkedCallerRow(row: PreparedRow): PreparedRow {
  if (row.kind !== 'ready') return row;
  const problem = requestJsonProblem(row.request);
  if (problem === undefined) return row;
  const path = problem.place === 'request' ? '(request)' : problem.place.slice('request.'.length);
  return {
    kind: 'invalid',
    location: row.location,
    sku: row.sku,
    issues: [{ path, message: problem.why }],
    ...(row.rows === undefined ? {} : { rows: row.rows }),
    ...(row.marketplace === undefined ? {} : { marketplace: row.marketplace }),
  };
}
