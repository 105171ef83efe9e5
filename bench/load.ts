import { Agent, request } from 'node:http';

export type LoadResult = {
  concurrency: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Wall time of the run and every latency, sorted: what `merge` combines. */
  seconds: number;
  latenciesMs: number[];
};

/**
 * Closed-loop load over keep-alive HTTP: `concurrency` clients each send a
 * request as soon as their previous one finishes, until `total` requests are
 * done. Bounded by count, so a run always ends.
 */
export async function load(url: string, headers: Record<string, string>, concurrency: number, total: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  const client = async () => {
    while (sent < total) {
      sent++;
      const t0 = performance.now();
      const status = await get(url, headers, agent);
      latencies.push(performance.now() - t0);
      if (status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors,
    seconds,
    latenciesMs: latencies,
  };
}

/** Runs of the same load as one: requests over the summed wall time, percentiles of all latencies. */
export function merge(runs: LoadResult[]): LoadResult {
  const latencies = runs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    concurrency: runs[0]!.concurrency,
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    seconds,
    latenciesMs: latencies,
  };
}

/** One GET over a keep-alive agent; resolves with the status once the body is read. */
export function get(url: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One GET as a client that accepts gzip: its status and the bytes on the wire (status line, headers, body as sent). */
export function getWire(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, 'Accept-Encoding': 'gzip' } }, (res) => {
      let bytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n\r\n`.length;
      for (let i = 0; i < res.rawHeaders.length; i += 2) bytes += res.rawHeaders[i]!.length + res.rawHeaders[i + 1]!.length + 4;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}
