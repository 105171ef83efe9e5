import { parseArgs } from 'node:util';
import { runSmoke } from '../smoke/run.js';

/**
 * npm run smoke -- --base-url URL --client-id ID --client-secret SECRET --group G [--origin-url URL]
 * The contract's read-only checks against a stage; exit 0 when all pass, 1 when any differs, 2 on bad usage.
 * --origin-url: the API Gateway URL behind the stage's edge (stack output ApiUrl); adds the edge's checks
 * (a direct call is refused with 403, nothing is cached, absolute URLs name the base URL).
 * SMOKE_CLIENT_SECRET may carry the secret instead of the flag, keeping it out of `ps` and shell history.
 */
const USAGE = 'usage: npm run smoke -- --base-url URL --client-id ID --client-secret SECRET --group GROUP_ID [--origin-url URL]';

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      group: { type: 'string' },
      'origin-url': { type: 'string' },
    },
  }));
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}

values['client-secret'] ??= process.env.SMOKE_CLIENT_SECRET;
const missing = ['base-url', 'client-id', 'client-secret', 'group'].filter((name) => !values[name]);
const httpUrl = (value: string | undefined) => URL.canParse(value ?? '') && ['http:', 'https:'].includes(new URL(value!).protocol);
const badUrl = !httpUrl(values['base-url'])
  ? '--base-url'
  : values['origin-url'] !== undefined && !httpUrl(values['origin-url'])
    ? '--origin-url'
    : null;
if (missing.length || badUrl) {
  console.error(`${missing.length ? `missing --${missing.join(', --')}` : `${badUrl} must be an http(s) URL`}\n${USAGE}`);
  process.exit(2);
}

const options = {
  baseUrl: values['base-url']!,
  groupId: values.group!,
  clientId: values['client-id']!,
  clientSecret: values['client-secret']!,
  originUrl: values['origin-url'],
};
const passed = await runSmoke(options, (line) => console.log(line));
process.exitCode = passed ? 0 : 1;
