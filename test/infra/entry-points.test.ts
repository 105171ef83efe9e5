import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAMILY_TAG } from '#lib/constructs/service-function';
import type { Stage } from '#lib/stages';
import { stageTemplates } from '../support/stage-template.js';

/**
 * Every invocation names a function's live alias (lib/constructs/service-function.ts), so a canary shifts and a
 * rollback reverts all of a function's traffic; and no alias exists that nothing invokes. dev deploys all at once,
 * prod by canary with its smoke hook.
 */
type Json = Record<string, any>;
const STAGES_HERE = ['dev', 'prod'] as const satisfies readonly Stage[];
let templates: Record<(typeof STAGES_HERE)[number], Template>;

beforeAll(async () => {
  templates = await stageTemplates(STAGES_HERE);
});

const of = (template: Template, type: string) => template.findResources(type) as Record<string, Json>;
/** The one resource an invoker's target refers to (an alias's ARN, or its name built from it), or all of them if several. */
const refsIn = (target: unknown) => [...JSON.stringify(target).matchAll(/"Ref":"(\w+)"/g)].map(([, id]) => id!);
const familyOf = (fn: Json) => (fn.Properties.Tags ?? []).find((t: Json) => t.Key === FAMILY_TAG)?.Value as string | undefined;

/** What each invoker names as the function it invokes: API Gateway and EventBridge permissions, event sources, SNS. */
function invoked(template: Template): { by: string; target: unknown }[] {
  return [
    ...Object.values(of(template, 'AWS::Lambda::Permission')).map((p) => ({
      by: `permission for ${p.Properties.Principal}`,
      target: p.Properties.FunctionName,
    })),
    ...Object.values(of(template, 'AWS::Lambda::EventSourceMapping')).map((m) => ({
      by: 'event source mapping',
      target: m.Properties.FunctionName,
    })),
    ...Object.values(of(template, 'AWS::Events::Rule')).flatMap((r) =>
      r.Properties.Targets.map((t: Json) => ({ by: 'schedule', target: t.Arn })),
    ),
    ...Object.values(of(template, 'AWS::SNS::Subscription'))
      .filter((s) => s.Properties.Protocol === 'lambda')
      .map((s) => ({ by: 'SNS subscription', target: s.Properties.Endpoint })),
  ];
}

describe.each(STAGES_HERE)('%s: entry points', (stage) => {
  it('invokes every function through its live alias, and has no alias nothing invokes', () => {
    const template = templates[stage];
    const aliases = of(template, 'AWS::Lambda::Alias');
    const entries = invoked(template);
    expect(entries.length).toBeGreaterThan(0);
    for (const { by, target } of entries) {
      const refs = refsIn(target);
      expect(refs, `${by} → ${JSON.stringify(target)}`).toHaveLength(1);
      expect(Object.keys(aliases), `${by} → ${JSON.stringify(target)}`).toContain(refs[0]);
    }

    // Nothing outside the stack invokes a function: every alias has an invoker here.
    const reached = new Set(entries.flatMap((e) => refsIn(e.target)));
    expect(Object.keys(aliases).filter((id) => !reached.has(id))).toEqual([]);
  });
});

describe('prod: the canary smoke hook', () => {
  it('is a function with no alias or version of its own: CodeDeploy invokes it by name', () => {
    const template = templates.prod;
    const [hookId] = Object.entries(of(template, 'AWS::Lambda::Function')).find(([, fn]) => familyOf(fn) === 'smoke-hook')!;
    const qualifying = [...Object.values(of(template, 'AWS::Lambda::Alias')), ...Object.values(of(template, 'AWS::Lambda::Version'))];
    expect(qualifying.filter((q) => q.Properties.FunctionName.Ref === hookId)).toEqual([]);
    const groups = Object.values(of(template, 'AWS::CodeDeploy::DeploymentGroup'));
    expect(groups.length).toBeGreaterThan(0);
  });
});
