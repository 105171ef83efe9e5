import { parseArgs } from 'node:util';
import { benchBundles } from './bundles.js';
import { benchCapacity } from './capacity-run.js';
import { benchEmergencyStop } from './emergency-stop.js';
import { benchIdle } from './idle.js';
import { benchKitchen } from './kitchen.js';
import { benchRoundTrips } from './roundtrips.js';
import { benchScale } from './scale.js';
import { soak } from './soak.js';
import { benchThroughput } from './throughput.js';
import { benchWarmStart } from './warm-start.js';
import { benchWebhooks } from './webhooks.js';

/**
 * npm run bench: figures, never pass/fail. Every section prints its measure
 * beside a baseline measured in the same run (and the goal, where there is one).
 *
 *   npm run bench                          every section below, in this order
 *   npm run bench -- --only roundtrips     one section (or several: --only idle,start)
 *   npm run bench -- --soak [--minutes N] [--rps R]   the memory soak alone (bench/soak.ts)
 */
const SECTIONS = {
  idle: ['Idle runtime', benchIdle],
  start: ['Warm start', benchWarmStart],
  throughput: ['Throughput', benchThroughput],
  roundtrips: ['DynamoDB round trips per request', benchRoundTrips],
  bundles: ['Lambda bundles', benchBundles],
  kitchen: ['Kitchen endpoint (largest payload)', benchKitchen],
  webhooks: ['Webhooks end to end (publish → verified delivery at a local HTTPS receiver)', benchWebhooks],
  stops: ['Emergency stops (POST → the simulated device platform receives it)', benchEmergencyStop],
  scale: ['At any size: per-request cost as a group grows', benchScale],
  capacity: [
    "Capacity model: each stage at a platform's load, its first breaking point, local delivery throughput, and the producers' writes with local ingest throughput",
    benchCapacity,
  ],
} as const satisfies Record<string, readonly [string, () => Promise<string[]>]>;
type Section = keyof typeof SECTIONS;

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    soak: { type: 'boolean', default: false },
    minutes: { type: 'string', default: '10' },
    rps: { type: 'string', default: '100' },
  },
});

if (flags.soak) {
  await soak(Number(flags.minutes), Number(flags.rps));
} else {
  const names = (flags.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? Object.keys(SECTIONS)) as Section[];
  const unknown = names.filter((name) => !(name in SECTIONS));
  if (unknown.length) {
    console.error(`unknown section ${unknown.join(', ')}; choose from ${Object.keys(SECTIONS).join(', ')}`);
    process.exit(2);
  }
  console.log(`npm run bench (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`);
  for (const name of names) {
    const [title, bench] = SECTIONS[name];
    console.log(`\n${title} (--only ${name}):`);
    for (const line of await bench()) console.log(line.startsWith(' ') ? line : `  ${line}`);
  }
}
