import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export type DelayProxy = {
  url: string;
  /** Milliseconds every request byte waits before it goes on; answers pass at once. Changeable between measurements. */
  delayMs: number;
  close(): Promise<void>;
};

/**
 * A TCP proxy in front of an HTTP engine that holds each chunk a client
 * sends for `delayMs`, in order, per connection. A request is one or a few
 * chunks sent together, so it arrives `delayMs` late; its answer is not
 * delayed. Calls made in parallel travel on separate connections and wait
 * side by side; calls made one after another each wait in turn. So the
 * latency a request gains from the delay, divided by it, is the number of
 * sequential round trips it made to the engine. Each request's Host line names the engine, which admits only its
 * own (a raw CR LF never occurs in a JSON body, so the line is found by its CR LFs).
 */
export async function startDelayProxy(target: string): Promise<DelayProxy> {
  const { hostname, port, host } = new URL(target);
  const hostLine = (chunk: Buffer) =>
    Buffer.from(chunk.toString('latin1').replace(/\r\nhost: [^\r]*\r\n/i, `\r\nhost: ${host}\r\n`), 'latin1');
  const sockets = new Set<Socket>();
  const proxy: DelayProxy = {
    url: '',
    delayMs: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const queue: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | null = null;
    const pump = () => {
      timer = null;
      const now = performance.now();
      while (queue.length && queue[0]!.at <= now) {
        upstream.write(queue.shift()!.chunk);
      }
      if (queue.length) timer = setTimeout(pump, queue[0]!.at - now);
    };
    client.on('data', (chunk: Buffer) => {
      const arrived = performance.now();
      // Never before an earlier chunk of the same connection, whatever the delay is now.
      const at = Math.max(arrived + proxy.delayMs, queue.at(-1)?.at ?? 0);
      queue.push({ at, chunk: hostLine(chunk) });
      if (timer === null) {
        if (at <= arrived) pump();
        else timer = setTimeout(pump, at - arrived);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      if (timer) clearTimeout(timer);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
