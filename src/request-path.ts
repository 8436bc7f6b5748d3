/**
 * The path of a request target, without its query or fragment: `/hooks?x=1` -> `/hooks`. A target in absolute form
 * (`http://host/hooks`, which RFC 9112 3.2.2 says a server must accept, though clients send it to proxies) gives its
 * path too, rather than never matching one; any other form (`*`, `host:port`) is returned as it is.
 */
export function requestPath(target: string): string {
  let path = target;
  if (/^https?:\/\//i.test(target)) {
    const authority = target.indexOf('//') + 2;
    // The authority ends at the first /, ? or #: `http://host?a=/b` has the path `/`.
    const end = target.slice(authority).search(/[/?#]/);
    path = end < 0 || target[authority + end] !== '/' ? '/' : target.slice(authority + end);
  }
  const query = path.search(/[?#]/);
  return query < 0 ? path : path.slice(0, query);
}
