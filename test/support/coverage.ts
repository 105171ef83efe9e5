import type { Session } from 'node:inspector/promises';

/** Vitest's module runner reads every export through a getter (`() => { try { return name } catch {} }`): reading a constant is not running its module's code. */
const EXPORT_GETTER = /^\(\)\s*=>\s*\{\s*try\s*\{\s*return\s+[\w$]+;?\s*\}\s*catch\s*\{\s*\}\s*\}$/;

type Range = { startOffset: number; endOffset: number; count: number };
export type ScriptCoverage = { scriptId: string; url: string; functions: { functionName: string; ranges: Range[] }[] };

/**
 * The functions of a script that are its own code, each with its first range: every function but the module's top
 * level (the whole script) and the runner's export getters. Needs `Debugger.enable` on the session (script sources).
 */
export async function ownFunctions(session: Session, script: ScriptCoverage): Promise<Range[]> {
  const { scriptSource } = await session.post('Debugger.getScriptSource', { scriptId: script.scriptId });
  const spans = script.functions.map((f) => ({
    ...f.ranges[0]!,
    text: scriptSource.slice(f.ranges[0]!.startOffset, f.ranges[0]!.endOffset),
  }));
  // The top level spans the whole script; a take may omit it (it did not run since the last), so it is told by its span.
  return spans.filter((s) => s.text.length < scriptSource.length && !EXPORT_GETTER.test(s.text));
}
