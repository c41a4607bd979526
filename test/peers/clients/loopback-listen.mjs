// Preloaded (`node --import`) into a server that listens on every interface and takes its port from the
// environment (the MCP "everything" reference server): it listens on 127.0.0.1 only, and says the port it got.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] !== 'number' && typeof args[0] !== 'string') return listen.apply(this, args);
  this.once('listening', () => process.stderr.write(`tapedeck: listening on 127.0.0.1:${this.address().port}\n`));
  return listen.call(this, Number(args[0]), '127.0.0.1', ...args.filter((a) => typeof a === 'function'));
};
