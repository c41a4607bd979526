// The 20 exchanges the in-process recording tests send, in order, with the global fetch: three headers on each,
// queries on most; JSON, an SSE stream of 50 events, gzip, two 401s and a POST. Shared by the tests and the user
// vitest files they write, so every recorder sees the same client.

/** Sends the 20 exchanges to `base`; resolves to `status body` for each, as the client read it. */
export async function twentyExchanges(base, init = {}) {
  const seen = [];
  const headers = { 'x-trace': 't-1', 'x-team': 'agents', accept: 'application/json, text/event-stream' };
  const go = async (path, extra = {}) => {
    const res = await fetch(`${base}${path}`, { headers, ...extra, ...init });
    seen.push(`${res.status} ${await res.text()}`);
  };
  for (let i = 0; i < 14; i++) await go(`/items/${i}?v=1&page=${i % 3}`);
  await go('/stream');
  await go('/gz?v=2');
  await go('/gz?v=3');
  await go('/secret?v=1');
  await go('/secret');
  await go('/echo', {
    method: 'POST',
    body: JSON.stringify({ hello: 'wörld' }),
    headers: { ...headers, 'content-type': 'application/json' },
  });
  return seen;
}
