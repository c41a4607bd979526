import { createServer } from 'node:http';
import { Agent } from 'undici';
import { SseParser } from '../sse/index.js';
import { forward } from './forward.js';

/**
 * Sends one SSE request over loopback through the path a recorded request
 * takes (`forward` through undici's client, whose HTTP parser is WebAssembly
 * compiled on the first connection; the SSE parser), so the first real request a fresh proxy
 * forwards does not pay for compiling them. Never fails, and gives up after
 * 2 s: a warm-up that cannot run leaves the proxy as it was.
 */
export async function warmUpForwarding(): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('event: warm\ndata: {"up":true}\n\n');
  });
  const agent = new Agent({ keepAliveTimeout: 1 });
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') return;
    const parser = new SseParser({ raw: true });
    const warm = forward(
      agent,
      { origin: `http://127.0.0.1:${address.port}`, path: '/', method: 'GET', headers: {}, body: null },
      () => (chunk) => {
        parser.push(chunk);
        return true;
      },
    );
    const giveUp = setTimeout(() => warm.abort(new Error('the warm-up took over 2 s')), 2_000);
    await warm.done.finally(() => clearTimeout(giveUp));
  } catch {
    // Only a head start: the proxy works the same without it.
  } finally {
    await agent.close().catch(() => {});
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
