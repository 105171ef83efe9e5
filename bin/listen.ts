import { listen, ListenUsageError } from '../admin-cli/listen.js';

/** npm run listen -- --app CLIENT_ID --forward-to http://localhost:4000/hook (docs/webhooks.md#receiving-webhooks-locally). */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const io = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };
const listener = await listen(process.argv.slice(2), io, process.env).catch((err: unknown) => {
  if (!(err instanceof ListenUsageError)) throw err;
  console.error(`npm run listen: ${err.message}`);
  process.exit(2);
});

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  // A runtime stopped first leaves nothing to remove: say so, and exit 1.
  const failed = await listener.close().then(
    () => false,
    (err: unknown) => (console.error(`npm run listen: ${(err as Error).message}`), true),
  );
  process.exit(failed ? 1 : 0);
}
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
