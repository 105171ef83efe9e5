import { describe, expect, it } from 'vitest';
import { STAGES } from '#lib/stages';
import { configFromEnv } from '#platform/config';
import { urlSafetyOf } from '#lambdas/webhooks/destinations';
import { stageTemplates } from '../support/stage-template.js';

/**
 * Loopback destinations are the local runtime's alone: WEBHOOK_ALLOW_LOOPBACK=1 (tests) and the inbox it reserves
 * for `npm run listen`, which is never read from the environment. No function of any stage is given the switch (or
 * the delivery time scale), and the config every function builds from its environment applies the public-only
 * URL rules, so a deployed stage keeps refusing loopback URLs on save and before every attempt.
 */

describe('local-only webhook switches', () => {
  it.each(STAGES)('are in no function environment of stage %s', async (stage) => {
    const functions = Object.values((await stageTemplates([stage]))[stage].findResources('AWS::Lambda::Function'));
    const names = functions.flatMap((fn) => Object.keys(fn.Properties.Environment?.Variables ?? {}));
    // The environments are read where the stack sets them: TABLE_NAME is in them.
    expect(names).toContain('TABLE_NAME');
    expect(names.filter((name) => name === 'WEBHOOK_ALLOW_LOOPBACK' || name === 'WEBHOOK_TIME_SCALE')).toEqual([]);
    for (const fn of functions) {
      const env = Object.entries(fn.Properties.Environment?.Variables ?? {}).filter(([, value]) => typeof value === 'string');
      const config = configFromEnv(Object.fromEntries(env) as NodeJS.ProcessEnv);
      expect([config.webhookListenInbox, urlSafetyOf(config)]).toEqual([null, { allowLoopback: false }]);
    }
  });
});
