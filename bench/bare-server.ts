import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Baseline: node:http answering a fixed JSON body, nothing else (a child of the bench, like the runtime). */
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end('{"ok":true}');
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`READY ${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })}`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
