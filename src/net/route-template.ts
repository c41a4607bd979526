const ID_SEGMENT = /^(?:[0-9a-f]{32}|[0-9a-f-]{36}|[a-z]+_[0-9a-zA-Z]{8,}|\d+)$/;

/** `POST /v1/sessions/{id}/events`: ids in paths are noise, the route is not. */
export function routeTemplate(method: string, path: string): string {
  const pathname = path.split('?')[0] ?? '';
  return `${method.toUpperCase()} ${pathname
    .split('/')
    .map((s) => (ID_SEGMENT.test(s) ? '{id}' : s))
    .join('/')}`;
}
