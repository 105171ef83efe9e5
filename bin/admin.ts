import { systemClock } from '../lambdas/shared/clock.js';
import { runCli } from '../lib/admin-cli/run.js';

/** npm run admin -- <command> [flags]; `npm run admin -- help` lists the commands. */
process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  clock: systemClock,
});
