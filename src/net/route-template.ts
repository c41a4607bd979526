// A prefixed id may have more than one part (hermes 0.19.0 names sessions `api_1796154474_0fb66422`); it holds a digit, so `chat_stream` stays a word.
const ID_SEGMENT = /^(?:[0-9a-f]{32}|[0-9a-f-]{36}|[a-z]+_(?=[0-9a-zA-Z_]*\d)[0-9a-zA-Z_]{8,}|\d+)$/;

/** `POST /v1/sessions/{id}/events`: ids in paths are noise, the route is not. */
export function routeTemplate(method: string, path: string): string {
  const pathname = path.split('?')[0] ?? '';
  return `${method.toUpperCase()} ${pathname
    .split('/')
    .map((s) => (ID_SEGMENT.test(s) ? '{id}' : s))
    .join('/')}`;
}
