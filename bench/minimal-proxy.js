import http from 'node:http';

/**
 * The reference for what any Node proxy costs: pipes bytes both ways with
 * node:http and a keep-alive agent, records nothing.
 */
export function startMinimalProxy(target) {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.flushHeaders();
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => {
          server.closeAllConnections();
          server.close();
          agent.destroy();
        },
      });
    });
  });
}

// Run as a script (`node bench/minimal-proxy.js TARGET`) it prints `listening on URL`,
// so it can live in its own process exactly like `bench proxy`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const proxy = await startMinimalProxy(process.argv[2]);
  process.stdout.write(`listening on ${proxy.url}\n`);
}
