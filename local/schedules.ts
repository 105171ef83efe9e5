import type { Logger } from '#platform/observability';

export type Schedule = { runNow(): Promise<void>; stop(): Promise<void> };

/** Plays an EventBridge rate schedule: run `job` every `everyMs`, never two runs at once. */
export function startSchedule(name: string, everyMs: number, job: () => Promise<unknown>, logger: Logger): Schedule {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => {
      try {
        await job();
      } catch (err) {
        logger.error('scheduled job failed', { schedule: name, error: (err as Error).message });
      }
    });
    return running;
  };
  const timer = setInterval(() => void run(), everyMs);
  timer.unref();
  return {
    runNow: run,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
