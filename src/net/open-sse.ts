import type { ServerResponse } from 'node:http';

/** Opens an SSE response; the writer takes a payload and an optional event name. */
export function openSse(res: ServerResponse, headers: Record<string, string> = {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...headers });
  return {
    send: (data: unknown, event?: string) =>
      res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
    comment: (text: string) => res.write(`: ${text}\n\n`),
    end: () => res.end(),
  };
}
