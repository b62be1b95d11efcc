/**
 * Problems after an applied edit: the task that changed a file learns, with the approval's
 * outcome, what the language servers now report there that they did not report before, so it can
 * fix what it broke instead of ending on a red file. The person sees the same lines on the card.
 *
 * Before the apply the current problems of the files are read and the servers are watched; after
 * it, the servers get a bounded time to report (a TypeScript check of a small file takes a few
 * hundred ms; a file no server checks never reports, hence the bound).
 */
import type { CodeDiagnostic, CodeIntelPort } from './codeIntelPort';

/** How long an apply waits for the language servers at most. */
export const PROBLEMS_SETTLE_MS = 4000;
/** Problems listed at most; the rest are counted. */
const MAX_LISTED = 15;
const MAX_MESSAGE_CHARS = 300;

/** Called before an apply with the files it will leave; the returned function, after it. */
export type ProblemsWatch = (paths: readonly string[]) => Promise<() => Promise<string | undefined>>;

const key = (d: CodeDiagnostic) => `${d.path}\u0000${d.severity}\u0000${d.code ?? ''}\u0000${d.message}`;

/** Only errors and warnings: hints and infos are style, not breakage. */
const matters = (d: CodeDiagnostic) => d.severity === 'error' || d.severity === 'warning';

export function problemsAfterApply(port: CodeIntelPort, settleMs = PROBLEMS_SETTLE_MS): ProblemsWatch {
  return async (paths) => {
    if (!paths.length) return async () => undefined;
    const watcher = await port.watchDiagnostics?.(paths).catch(() => undefined);
    // A problem counts as old once per occurrence before: the same message twice, once fixed, is one new.
    const before = new Map<string, number>();
    for (const d of (await port.diagnostics(paths).catch(() => [])).filter(matters)) before.set(key(d), (before.get(key(d)) ?? 0) + 1);
    return async () => {
      try {
        await watcher?.settled(settleMs);
        const fresh: CodeDiagnostic[] = [];
        for (const d of (await port.diagnostics(paths)).filter(matters)) {
          const left = before.get(key(d)) ?? 0;
          if (left > 0) before.set(key(d), left - 1);
          else fresh.push(d);
        }
        return describeProblems(fresh);
      } catch {
        return undefined; // the outcome stands without the problems; nothing to tell
      } finally {
        watcher?.dispose();
      }
    };
  };
}

/** `src/a.ts:3:31: error ts(2345): Argument of type…`: one problem on one line, as get_diagnostics shows it. */
export function problemLine(d: CodeDiagnostic): string {
  const message = d.message.replace(/\s+/g, ' ').trim();
  return `${d.path}:${d.line}:${d.column}: ${d.severity}${d.source ? ` ${d.source}` : ''}${d.code ? `(${d.code})` : ''}: ${message.slice(0, MAX_MESSAGE_CHARS)}`;
}

/** One line per problem, errors first, for the task and the card; undefined when there is none. */
export function describeProblems(problems: readonly CodeDiagnostic[]): string | undefined {
  if (!problems.length) return undefined;
  const sorted = [...problems].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const lines = sorted.slice(0, MAX_LISTED).map((d) => `- ${problemLine(d)}`);
  const more = sorted.length > MAX_LISTED ? `\n- and ${sorted.length - MAX_LISTED} more` : '';
  const errors = problems.filter((d) => d.severity === 'error').length;
  const head = `New problems in the changed files since the edit (${errors} error${errors === 1 ? '' : 's'}, ${problems.length - errors} warning${problems.length - errors === 1 ? '' : 's'}):`;
  return `${head}\n${lines.join('\n')}${more}`;
}
