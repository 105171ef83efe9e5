/**
 * Named mutants: each breaks one contract rule that only the integration or e2e tests reach, as data.
 * `search` must occur exactly once in its file at HEAD; a refactor that moves the code updates it here.
 * `tests` are the files run and `names` the vitest -t pattern (a regular expression over full test names)
 * of the tests that must fail once the rule is broken.
 */
type Edit = { file: string; search: string; replace: string };
export type NamedMutant = { name: string; rule: string; edits: Edit[]; tests: string[]; names: string };

const WEBHOOK_CONTRACT = 'test/integration/webhook-contract.test.ts';

export const MUTANTS: NamedMutant[] = [
  {
    name: 'retry at once',
    rule: '6.6: a retryable failure waits its backoff (30 s or more) before the next attempt',
    edits: [
      {
        file: 'lambdas/webhooks/deliver.ts',
        search:
          'if (d.status === STATUS.RETRY_PENDING) return scaledTimings(deps.config.webhookTimeScale).backoffVisibilitySeconds(d.backoffHistory.at(-1)!);',
        replace: 'if (d.status === STATUS.RETRY_PENDING) return 0;',
      },
    ],
    tests: [WEBHOOK_CONTRACT],
    names: "retry policy from the queue's side",
  },
  {
    name: 'coverage check off',
    rule: '6.5 rule 3: a destination receives events only for the locations it covers (fan-out and attempt)',
    edits: [
      { file: 'lambdas/webhooks/fan-out.ts', search: '&& covers(d, app, groupId, locationId);', replace: '&& true;' },
      {
        file: 'lambdas/webhooks/deliver.ts',
        search: 'if (delivery.eventType === MENU_UPDATED && !covers(destination, app!, delivery.groupId, delivery.locationId)) {',
        replace: 'if (delivery.eventType === MENU_UPDATED && !true) {',
      },
    ],
    tests: [WEBHOOK_CONTRACT],
    names: 'coverage at fan-out|attempt-time coverage',
  },
  {
    name: 'coverage check off at the attempt only',
    rule: "6.5 rule 3: a selection that narrowed while a retry waited no longer covers the event's location",
    edits: [
      {
        file: 'lambdas/webhooks/deliver.ts',
        search: 'if (delivery.eventType === MENU_UPDATED && !covers(destination, app!, delivery.groupId, delivery.locationId)) {',
        replace: 'if (delivery.eventType === MENU_UPDATED && !true) {',
      },
    ],
    tests: [WEBHOOK_CONTRACT],
    names: 'attempt-time coverage',
  },
  {
    name: 'enabled ignored at fan-out',
    rule: 'contract 3: a disabled destination gets no new matching events',
    edits: [
      {
        file: 'lambdas/webhooks/fan-out.ts',
        search: 'const enabled = destinations.filter((d) => d.enabled);',
        replace: 'const enabled = destinations.filter(() => true);',
      },
    ],
    tests: [WEBHOOK_CONTRACT],
    names: 'fan-out skips what may not receive',
  },
  {
    name: 'attempt-time re-check off',
    rule: '6.6: a destination disabled or whose application is revoked, inactive or without bevq fails at attempt time without a request',
    edits: [
      {
        file: 'lambdas/webhooks/deliver.ts',
        search:
          "  if (!destination.enabled) return 'destination_disabled';\n  const ineligible = appIneligibility(app, now);\n  if (ineligible) return ineligible;\n",
        replace: '',
      },
    ],
    tests: [WEBHOOK_CONTRACT, 'test/integration/webhook.test.ts'],
    names: 'attempt-time re-check|fails a queued retry without a request',
  },
  {
    name: 'scope check off',
    rule: "5.3: a token missing the route's scope is refused with 403",
    edits: [
      { file: 'lambdas/platform/auth.ts', search: 'if (route.scope && !app.scopes.includes(route.scope)) {', replace: 'if (false) {' },
    ],
    tests: ['test/e2e/contract-rules.test.ts'],
    names: 'insufficient_scope|refused by it',
  },
  {
    name: 'prototype-named fields dropped',
    rule: 'an unknown body field is refused whatever its name: __proto__, constructor and prototype are not dropped unseen',
    edits: [
      {
        file: 'lambdas/admin/inputs.ts',
        search: 'const OPERATION_CHECKS = v.unknown();',
        replace: 'const OPERATION_CHECKS = v.looseObject({});',
      },
    ],
    tests: ['test/e2e/validation-messages.test.ts'],
    names: 'whatever their name',
  },
  {
    name: 'reason outside the rule of names',
    rule: "the emergency stop's reason refuses control, bidirectional and invisible characters, as every name does",
    edits: [
      {
        file: 'lambdas/contract/schemas/requests.ts',
        search: 'reason: v.optional(plainText(500)),',
        replace: 'reason: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(500))),',
      },
    ],
    tests: ['test/e2e/matriq-devices.test.ts'],
    names: 'refuses a reason with',
  },
];
