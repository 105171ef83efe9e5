import { spawn, type SpawnOptions } from 'node:child_process';

export type ProcessRun = { status: number | null; stdout: string; stderr: string };

/**
 * A child process, awaited without blocking the test's event loop (spawnSync would: a worker that cannot answer
 * vitest's own calls for a minute fails the run with "Timeout calling onTaskUpdate", whatever its tests say; and a
 * runtime the test serves from this process would stop answering the child). `input` goes to its stdin.
 */
export function runProcess(command: string, args: string[], options: SpawnOptions & { input?: string } = {}): Promise<ProcessRun> {
  const { input, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...spawnOptions, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
