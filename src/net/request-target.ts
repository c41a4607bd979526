/**
 * An absolute-form request target (`http://host:port/x?y`, what a client
 * behind `HTTP_PROXY` sends) split into its scheme and authority, and its
 * path and query byte for byte as written (a URL would resolve `..`); the
 * fragment, which no client should send, is dropped. Undefined for any other form.
 */
export function splitAbsoluteForm(requestTarget: string): { authority: string; path: string } | undefined {
  const authority = /^https?:\/\/[^/?#]*/i.exec(requestTarget);
  if (!authority) return undefined;
  const rest = requestTarget.slice(authority[0].length).replace(/#.*$/s, '');
  return { authority: authority[0], path: rest.startsWith('/') ? rest : `/${rest}` };
}
