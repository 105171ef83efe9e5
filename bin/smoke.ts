import { parseArgs } from 'node:util';
import { runSmoke } from '../lib/smoke/run.js';

/**
 * npm run smoke -- --base-url URL --client-id ID --client-secret SECRET --group G
 * The contract's read-only checks against a stage; exit 0 when all pass, 1 when any differs, 2 on bad usage.
 * SMOKE_CLIENT_SECRET may carry the secret instead of the flag, keeping it out of `ps` and shell history.
 */
const USAGE = 'usage: npm run smoke -- --base-url URL --client-id ID --client-secret SECRET --group GROUP_ID';

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      group: { type: 'string' },
    },
  }));
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}

values['client-secret'] ??= process.env.SMOKE_CLIENT_SECRET;
const missing = ['base-url', 'client-id', 'client-secret', 'group'].filter((name) => !values[name]);
const url = URL.canParse(values['base-url'] ?? '') ? new URL(values['base-url']!) : null;
if (missing.length || !url || !['http:', 'https:'].includes(url.protocol)) {
  console.error(`${missing.length ? `missing --${missing.join(', --')}` : '--base-url must be an http(s) URL'}\n${USAGE}`);
  process.exit(2);
}

const options = {
  baseUrl: values['base-url']!,
  groupId: values.group!,
  clientId: values['client-id']!,
  clientSecret: values['client-secret']!,
};
const passed = await runSmoke(options, (line) => console.log(line));
process.exitCode = passed ? 0 : 1;
