import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMail } from '#platform/mailer';
import type { LocalRuntime } from '#local/runtime';
import { admin as cli, runtimeFileFor } from '../fixtures/admin-cli.js';
import { adminCall, ENGINE_NAME, expectUnchanged, newApp, scanTable, sentMail, startTestRuntime } from '../support/runtime.js';

/**
 * Owner mail that survives bounces and complaints, over the whole local runtime: the sweeper sends through the
 * local SES with the configuration set, the local SES answers a bouncing address with SES's event record through
 * SNS to the mail-events function, which marks it; the next mail to it is not sent; operators list and lift it.
 */
const BOUNCING = 'Gone.Owner@Bounce.example';
const SOFT = 'full-mailbox@bounce.example';
const COMPLAINING = 'angry-owner@complaint.example';
let runtime: LocalRuntime;
let dir: string;
let runtimeFile: string;
let n = 0;

beforeAll(async () => {
  runtime = await startTestRuntime({ mailEvents: { bounce: [BOUNCING], softBounce: [SOFT], complain: [COMPLAINING] } });
  dir = mkdtempSync(join(tmpdir(), 'mail-suppression-'));
  runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Queues an owner alert as a /v1 request does, and runs the sweeper as its schedule would. */
async function alertAndSweep(to: string): Promise<string> {
  const subject = `Customer API: alert ${++n}`;
  await runtime.store.mailOutbox.queue(
    `rate-limit#app_test#${n}#warning`,
    { to, subject, text: 'usage reached 80 %' },
    runtime.deps.clock.now(),
  );
  await runtime.sweep();
  return subject;
}
const mailTo = async (address: string) =>
  (await sentMail(runtime)).filter((m) => m.to.some((to) => to.toLowerCase() === address.toLowerCase()));
const pendingMail = async () => (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('MAIL#') && i.GSI1PK !== undefined);
const suppressionItems = async () => (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('MAIL_SUPPRESSION#'));

const adminApi = (method: string, path: string, body?: unknown) => adminCall(runtime, method, path, body);

describe(`owner mail to a bouncing address (${ENGINE_NAME})`, () => {
  it('is sent once; the permanent bounce marks the address; the next mail is finished unsent; listed, then lifted, mail flows again', async () => {
    const app = await newApp(runtime, { ownerEmail: BOUNCING });
    const first = await alertAndSweep(BOUNCING);
    expect((await mailTo(BOUNCING)).map((m) => m.subject)).toEqual([first]);

    // Marked by the mail-events function: one item keyed by a hash, holding the address, the reason and when.
    const items = await suppressionItems();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ address: BOUNCING, reason: 'bounce', SK: 'MAIL_SUPPRESSION' });
    expect(String(items[0]!.PK)).toMatch(/^MAIL_SUPPRESSION#[0-9a-f]{64}$/);
    expect(String(items[0]!.PK)).not.toContain('bounce.example');

    // The next mail, to another spelling of the same mailbox: not sent, and not left pending for a retry.
    await alertAndSweep(BOUNCING.toLowerCase());
    expect(await mailTo(BOUNCING)).toHaveLength(1);
    expect(await pendingMail()).toEqual([]);
    // Mail the admin function sends itself (a destination notice) is held back too.
    expect(await sendMail(runtime.functionDeps('admin-api'), { to: BOUNCING, subject: 'direct', text: 'x' }, 'destination-created')).toBe(
      false,
    );
    expect(await mailTo(BOUNCING)).toHaveLength(1);

    // Operators see it: the admin API's list, the application documents, the CLI.
    const listed = await adminApi('GET', '/mail-suppressions');
    expect(listed.status).toBe(200);
    expect(listed.body.suppressions).toEqual([expect.objectContaining({ address: BOUNCING, reason: 'bounce', at: expect.any(String) })]);
    expect((await adminApi('GET', `/apps/${app.clientId}`)).body.app.ownerEmailSuppressed).toBe(true);
    const page = await adminApi('GET', '/apps?groupId=demo-group&limit=1000');
    expect(page.body.apps.find((a: { clientId: string }) => a.clientId === app.clientId).ownerEmailSuppressed).toBe(true);
    const shown = await cli(runtimeFile, ['mail', 'suppressions']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`${BOUNCING.replace(/\./g, '\\.')}\\s+bounce\\s+\\d{4}-`));

    // Lifted by the API (audited), mail flows again; the next bounce marks it again.
    const lifted = await adminApi('POST', '/mail-suppressions/lift', { address: BOUNCING.toUpperCase() });
    expect(lifted.status).toBe(200);
    expect(await suppressionItems()).toEqual([]);
    expect((await adminApi('GET', `/apps/${app.clientId}`)).body.app.ownerEmailSuppressed).toBe(false);
    const audit = await adminApi('GET', '/audit');
    expect(audit.body.entries[0]).toMatchObject({ operation: 'liftMailSuppression', actor: 'local-admin-key' });
    const again = await alertAndSweep(BOUNCING);
    expect((await mailTo(BOUNCING)).map((m) => m.subject)).toEqual([first, again]);
    expect(await suppressionItems()).toHaveLength(1);

    // And lifted by the CLI.
    const unsuppressed = await cli(runtimeFile, ['mail', 'unsuppress', BOUNCING, '--json']);
    expect(unsuppressed.code, unsuppressed.stderr).toBe(0);
    expect(unsuppressed.json).toEqual({ lifted: BOUNCING });
    expect(await suppressionItems()).toEqual([]);
  });

  it('suppresses a complaining address; a transient bounce suppresses nothing', async () => {
    await alertAndSweep(SOFT);
    await alertAndSweep(SOFT);
    expect(await mailTo(SOFT)).toHaveLength(2);
    await alertAndSweep(COMPLAINING);
    await alertAndSweep(COMPLAINING);
    expect(await mailTo(COMPLAINING)).toHaveLength(1);
    expect((await suppressionItems()).map((i) => [i.address, i.reason])).toEqual([[COMPLAINING, 'complaint']]);
    expect((await adminApi('POST', '/mail-suppressions/lift', { address: COMPLAINING })).status).toBe(200);
  });
});

describe(`what the mail-events function and the admin API refuse (${ENGINE_NAME})`, () => {
  const record = (bounce: unknown) =>
    JSON.stringify({ eventType: 'Bounce', bounce, mail: { messageId: 'm-1', destination: ['x@example.com'] } });
  const good = {
    bounceType: 'Permanent',
    bouncedRecipients: [{ emailAddress: 'victim@example.com' }],
    timestamp: '2026-11-22T12:00:00.000Z',
  };

  it.each([
    ['not JSON', 'not json {'],
    ['no event type', JSON.stringify({ bounce: good })],
    ['no bounce type', record({ ...good, bounceType: undefined })],
    ['no recipients', record({ ...good, bouncedRecipients: [] })],
    [
      'a recipient that is no address, beside a good one',
      record({ ...good, bouncedRecipients: [{ emailAddress: 'victim@example.com' }, { emailAddress: 'not an address' }] }),
    ],
    ['no time', record({ ...good, timestamp: 'yesterday' })],
  ])('refuses a notification with %s, marking nothing', async (_, message) => {
    await expect(runtime.mailEvents.deliver(message)).rejects.toMatchObject({ name: 'MalformedMailEvent' });
    expect(await suppressionItems()).toEqual([]);
  });

  it('marks from a well-formed notification handed to the same function (the parser the refusals above went through)', async () => {
    expect(await runtime.mailEvents.deliver(record(good))).toEqual([{ marked: 1, ignored: false }]);
    expect(await runtime.mailEvents.deliver(record(good))).toEqual([{ marked: 0, ignored: false }]);
    expect((await adminApi('POST', '/mail-suppressions/lift', { address: 'victim@example.com' })).status).toBe(200);
  });

  it('answers 400 to a lift of something that is no address, 404 to an address not suppressed, and changes nothing', async () => {
    await alertAndSweep(BOUNCING);
    const before = await suppressionItems();
    expect(before).toHaveLength(1);
    const notAddress = await adminApi('POST', '/mail-suppressions/lift', { address: 'not-an-address' });
    expect(notAddress.status).toBe(400);
    expect(notAddress.body.error.message).toMatch(/address: not an e-mail address/);
    expect((await adminApi('POST', '/mail-suppressions/lift', { address: 'nobody@example.com' })).status).toBe(404);
    expect((await adminApi('POST', '/mail-suppressions/lift', {})).status).toBe(400);
    expect((await adminApi('POST', '/mail-suppressions/lift', { address: BOUNCING, extra: 1 })).status).toBe(400);
    expect((await adminApi('GET', '/mail-suppressions?limit=0')).status).toBe(400);
    expectUnchanged(await suppressionItems(), before);
    const cliRefusal = await cli(runtimeFile, ['mail', 'unsuppress', 'nobody@example.com']);
    expect(cliRefusal.code).not.toBe(0);
    expect(cliRefusal.stderr).toMatch(/not suppressed/);
  });
});

describe(`listing suppressed addresses (${ENGINE_NAME})`, () => {
  it('pages through every partition with the signed cursor: each address once, whatever the page size', async () => {
    const addresses = Array.from({ length: 7 }, (_, i) => `paged-${i}@list.example`);
    for (const address of addresses)
      await runtime.store.mailSuppressions.suppress({ address, reason: 'bounce', at: '2026-11-22T12:00:00.000Z' });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await adminApi('GET', `/mail-suppressions?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.suppressions.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.suppressions.map((s: { address: string }) => s.address));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen.filter((a) => a.startsWith('paged-')).sort()).toEqual(addresses);
    expect(new Set(seen).size).toBe(seen.length);
    expect((await adminApi('GET', '/mail-suppressions?cursor=forged')).status).toBe(400);
    for (const address of addresses) expect((await adminApi('POST', '/mail-suppressions/lift', { address })).status).toBe(200);
  });
});
