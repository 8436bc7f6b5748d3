/** How an HTML page starts, after a byte order mark and blank space: a doctype, or the html element itself. */
const PAGE_START = /^(?:\ufeff)?\s*(?:<!--[^]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i;

/**
 * True when the first bytes of a catalog are an HTML page: a login or error page a server answered 200 with, or a
 * page saved in place of an export. No catalog format starts so, and read as CSV its markup would be a header of
 * columns the mapping offers to use.
 */
export function isHtmlPage(head: Buffer): boolean {
  return PAGE_START.test(head.subarray(0, 4096).toString('utf8'));
}
