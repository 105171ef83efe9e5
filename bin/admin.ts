import { runCli } from '../admin-cli/run.js';

/** npm run admin -- <command> [flags]; `npm run admin -- help` lists the commands. */

// On Node 20 every AWS SDK client prints a nine-line support notice to stderr; ops scripts read
// stderr for errors only. Set the variable to "false" to see the notice again.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
});
