/** One named check: what was expected and what came back, row by row. */
export class Check {
  private readonly rows: { what: string; expected: string; got: string }[] = [];

  constructor(readonly name: string) {}

  /** The value must be exactly `expected`. */
  equal(what: string, expected: unknown, got: unknown): this {
    this.rows.push({ what, expected: show(expected), got: show(got) });
    return this;
  }

  /** A property described in words: `got` is only shown when it does not hold. */
  holds(what: string, expected: string, ok: boolean, got: string): this {
    this.rows.push({ what, expected, got: ok ? expected : got });
    return this;
  }

  get passed(): boolean {
    return this.rows.every((r) => r.got === r.expected);
  }

  lines(): string[] {
    const differs = this.rows.filter((r) => r.got !== r.expected).map((r) => r.what);
    return [
      `${this.passed ? 'PASS' : 'FAIL'}  ${this.name}`,
      `      expected  ${this.rows.map((r) => `${r.what} ${r.expected}`).join('; ')}`,
      `      got       ${this.rows.map((r) => `${r.what} ${r.got}`).join('; ')}`,
      ...(differs.length ? [`      differs   ${differs.join(', ')}`] : []),
    ];
  }
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * Collects results and prints them as they come. Every line passes through
 * redaction first: a server that echoes a credential must not make the smoke
 * command print it.
 */
export class Report {
  private readonly secrets: string[] = [];
  passed = 0;
  failed: string[] = [];
  skipped = 0;

  constructor(private readonly print: (line: string) => void) {}

  redact(secret: string): void {
    // Real secrets and tokens are 43 characters; a very short one would blank out ordinary words instead.
    if (secret.length >= 8) this.secrets.push(secret);
  }

  line(text: string): void {
    this.print(this.secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text));
  }

  add(check: Check): void {
    if (check.passed) this.passed++;
    else this.failed.push(check.name);
    for (const line of check.lines()) this.line(line);
  }

  /** A check that could not run because an earlier one gave nothing to run it with. */
  notRun(name: string, needs: string): void {
    this.add(new Check(name).holds('run', 'yes', false, `no (needs ${needs})`));
  }

  /** Not applicable to this application (scope or module absent): neither a pass nor a difference. */
  skip(name: string, why: string): void {
    this.skipped++;
    this.line(`SKIP  ${name}: ${why}`);
  }
}
