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
    // The changed files and, where the host found them, the files importing them (a caller the edit broke).
    const watched = [...new Set([...paths, ...(watcher?.importers ?? [])])];
    const read = () => (watcher?.problems ? watcher.problems() : port.diagnostics(watched));
    // A problem counts as old once per occurrence before: the same message twice, once fixed, is one new.
    const before = new Map<string, number>();
    for (const d of (await read().catch(() => [])).filter(matters)) before.set(key(d), (before.get(key(d)) ?? 0) + 1);
    return async () => {
      try {
        const settled = await watcher?.settled(settleMs);
        const fresh: CodeDiagnostic[] = [];
        for (const d of (await read()).filter(matters)) {
          const left = before.get(key(d)) ?? 0;
          if (left > 0) before.set(key(d), left - 1);
          else fresh.push(d);
        }
        const lines = [describeProblems(fresh, paths), unheard(settled ? settled.unreported : [], settleMs)].filter((l) => l !== undefined);
        return lines.length ? lines.join('\n') : undefined;
      } catch {
        return undefined; // the outcome stands without the problems; nothing to tell
      } finally {
        watcher?.dispose();
      }
    };
  };
}

/**
 * Silence is not "no problems": VS Code says nothing about a file no server checks, and nothing
 * about a clean file that stays clean, so a changed file no server answered for is named, and
 * neither the model nor the person reads it as checked.
 */
function unheard(files: readonly string[], settleMs: number): string | undefined {
  if (!files.length) return undefined;
  const within = `within ${Math.round(settleMs / 100) / 10} s`;
  const it = files.length === 1 ? 'it' : 'them';
  return `No language server reported on ${files.join(', ')} ${within} (none checks ${it}, or none found anything to report in ${it}).`;
}

/** `src/a.ts:3:31: error ts(2345): Argument of type…`: one problem on one line, as get_diagnostics shows it. */
export function problemLine(d: CodeDiagnostic): string {
  const message = d.message.replace(/\s+/g, ' ').trim();
  return `${d.path}:${d.line}:${d.column}: ${d.severity}${d.source ? ` ${d.source}` : ''}${d.code ? `(${d.code})` : ''}: ${message.slice(0, MAX_MESSAGE_CHARS)}`;
}

/**
 * One line per problem, errors first, for the task and the card; undefined when there is none.
 * `changed`: the files the edit changed; a problem elsewhere is in a file importing them.
 */
export function describeProblems(problems: readonly CodeDiagnostic[], changed?: readonly string[]): string | undefined {
  if (!problems.length) return undefined;
  const sorted = [...problems].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const lines = sorted.slice(0, MAX_LISTED).map((d) => `- ${problemLine(d)}`);
  const more = sorted.length > MAX_LISTED ? `\n- and ${sorted.length - MAX_LISTED} more` : '';
  const errors = problems.filter((d) => d.severity === 'error').length;
  const where = changed && problems.some((d) => !changed.includes(d.path)) ? 'the changed files and the files importing them' : 'the changed files';
  const head = `New problems in ${where} since the edit (${errors} error${errors === 1 ? '' : 's'}, ${problems.length - errors} warning${problems.length - errors === 1 ? '' : 's'}):`;
  return `${head}\n${lines.join('\n')}${more}`;
}
