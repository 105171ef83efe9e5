import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#lib/app';
import { STAGES } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { testApp } from '../support/stage-template.js';
import { runProcess } from '../support/run-process.js';
import { CFN_LINT_VERSION, toolPath, TOOLS } from '../support/tools.js';

/**
 * Every stage's template as `cdk synth` builds it (`buildApp`, bin/app.ts's own function: its tags and cdk-nag
 * included; only the bundling is skipped) through cfn-lint CFN_LINT_VERSION: no error but the linter's known lag.
 * Warnings are printed; W3005 (a DependsOn that a GetAtt already implies) is how aws-cdk-lib orders a function
 * after its role's policy, and is left as it is. The preparation step of `npm test` found or brought cfn-lint.
 */

/**
 * Errors this cfn-lint reports on templates CloudFormation accepts: its schemas lag CloudFormation's. Each names the
 * rule, the resource type, the finding and the page that shows the template is right. Any other error fails.
 */
const LINTER_LAG = [
  {
    rule: 'E3002',
    resourceType: 'AWS::CloudWatch::Dashboard',
    property: 'Tags',
    // CloudFormation documents Tags on a dashboard (the stack's tags reach it through Tags.of in lib/app.ts).
    reference: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cloudwatch-dashboard.html',
  },
] as const;

const out = mkdtempSync(join(tmpdir(), 'cfn-lint-'));
const templates: string[] = [];
/** One cfn-lint finding (its JSON format), with the type of the resource it points at. */
type Finding = { level: string; rule: string; path: string[]; resourceType?: string; line: string };
let findings: Finding[] = [];
let exitCode: number | null = null;
let version = '';

type Reported = { Filename: string; Level: string; Rule: { Id: string }; Location: { Path: (string | number)[] }; Message: string };
function finding(reported: Reported): Finding {
  const path = reported.Location.Path.map(String);
  const { Resources } = JSON.parse(readFileSync(reported.Filename, 'utf8')) as { Resources: Record<string, { Type: string }> };
  return {
    level: reported.Level,
    rule: reported.Rule.Id,
    path,
    resourceType: path[0] === 'Resources' ? Resources[path[1]!]?.Type : undefined,
    line: `${reported.Filename.split('/').at(-1)}: ${reported.Rule.Id} ${path.join('/')}: ${reported.Message}`,
  };
}

const isLag = (f: Finding) =>
  LINTER_LAG.some(
    (lag) => f.rule === lag.rule && f.resourceType === lag.resourceType && f.path.join('/').endsWith(`Properties/${lag.property}`),
  );

beforeAll(async () => {
  const cfnLint = toolPath(TOOLS.cfnLint);
  version = (await runProcess(cfnLint, ['--version'])).stdout.trim();
  for (const stage of STAGES) {
    // A turn of the event loop between syntheses, each synchronous, lets vitest's own calls through.
    await new Promise((resolve) => setImmediate(resolve));
    const app = testApp({ outdir: join(out, stage), context: { stage, ...STAGE_CONTEXT[stage] } });
    const stack = buildApp(app);
    app.synth();
    templates.push(join(out, stage, stack.templateFile));
  }
  const run = await runProcess(cfnLint, ['--format', 'json', '--', ...templates]);
  findings = (JSON.parse(run.stdout || '[]') as Reported[]).map(finding);
  exitCode = run.status;
  // Resource counts against CloudFormation's 500 a template, for the operations page.
  for (const template of templates)
    console.log(`${template.split('/').at(-1)}: ${Object.keys(JSON.parse(readFileSync(template, 'utf8')).Resources).length} resources`);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('cfn-lint', () => {
  it(`is version ${CFN_LINT_VERSION}, the one its known lag is stated for`, () => {
    expect(version, `install it with pip install cfn-lint==${CFN_LINT_VERSION}, or set ${TOOLS.cfnLint.variable}`).toBe(
      `cfn-lint ${CFN_LINT_VERSION}`,
    );
  });

  it('lints the templates as deployed: the stack tags every resource that takes tags', () => {
    for (const template of templates) {
      const { Resources } = JSON.parse(readFileSync(template, 'utf8')) as {
        Resources: Record<string, { Type: string; Properties?: { Tags?: unknown } }>;
      };
      const dashboard = Object.values(Resources).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')!;
      expect(dashboard.Properties?.Tags, template).toEqual(expect.arrayContaining([{ Key: 'project', Value: 'customer-api' }]));
    }
  });

  it("finds no error in any stage but the linter's known lag, and that lag is still there", () => {
    const errors = findings.filter((f) => f.level === 'Error');
    expect(errors.filter((f) => !isLag(f)).map((f) => f.line)).toEqual([]);
    // Each lag entry still matches this version's findings (one per stage): else it is stale and goes.
    for (const lag of LINTER_LAG) expect(errors.filter(isLag).length, lag.reference).toBe(templates.length);
    // cfn-lint's exit code is a bit mask: 2 errors, 4 warnings, 8 informational; anything above 15 is its own failure.
    expect(exitCode!).toBeLessThan(16);
  });

  it('warns only of the dependency aws-cdk-lib adds on purpose', () => {
    const warnings = findings.filter((f) => f.level === 'Warning');
    expect(warnings.filter((f) => f.rule !== 'W3005').map((f) => f.line)).toEqual([]);
  });

  it('keeps each stage well under CloudFormation’s 500 resources', () => {
    for (const template of templates)
      expect(Object.keys(JSON.parse(readFileSync(template, 'utf8')).Resources).length, template).toBeLessThan(450);
  });
});
