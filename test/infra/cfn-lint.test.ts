import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomerApiStack } from '#lib/stack';
import { stageConfig, STAGES } from '#lib/stages';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { toolPath, TOOLS } from '../support/tools.js';

/**
 * Every stage's synthesized template through cfn-lint (CloudFormation's own resource schemas and rules): no error.
 * Warnings are printed; W3005 (a DependsOn that a GetAtt already implies) is how aws-cdk-lib orders a function
 * after its role's policy, and is left as it is. The preparation step of `npm test` found or brought cfn-lint.
 */
const CONTEXT = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;
const out = mkdtempSync(join(tmpdir(), 'cfn-lint-'));
const templates: string[] = [];
let findings: string[] = [];
let exitCode: number | null = null;

beforeAll(() => {
  for (const stage of STAGES) {
    const app = new App({ outdir: join(out, stage), context: { ...CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    new CustomerApiStack(app, `CustomerApi-${stage}`, { config: stageConfig(stage, STAGE_CONTEXT[stage]) });
    app.synth();
    templates.push(join(out, stage, `CustomerApi-${stage}.template.json`));
  }
  const run = spawnSync(toolPath(TOOLS.cfnLint), ['--format', 'parseable', '--', ...templates], { encoding: 'utf8' });
  findings = run.stdout.trim().split('\n').filter(Boolean);
  exitCode = run.status;
  // Resource counts against CloudFormation's 500 a template, for the operations page.
  for (const template of templates)
    console.log(`${template.split('/').at(-1)}: ${Object.keys(JSON.parse(readFileSync(template, 'utf8')).Resources).length} resources`);
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('cfn-lint', () => {
  it('finds no error in any stage', () => {
    const errors = findings.filter((line) => /:E\d{4}:/.test(line));
    expect(errors).toEqual([]);
    // cfn-lint's exit code is a bit mask: 2 errors, 4 warnings, 8 informational; anything above 15 is its own failure.
    expect(exitCode! & 2, findings.join('\n')).toBe(0);
    expect(exitCode!).toBeLessThan(16);
  });

  it('warns only of the dependency aws-cdk-lib adds on purpose', () => {
    const warnings = findings.filter((line) => /:W\d{4}:/.test(line));
    expect(warnings.filter((line) => !/:W3005:/.test(line))).toEqual([]);
  });

  it('keeps each stage well under CloudFormation’s 500 resources', () => {
    for (const template of templates)
      expect(Object.keys(JSON.parse(readFileSync(template, 'utf8')).Resources).length, template).toBeLessThan(450);
  });
});
