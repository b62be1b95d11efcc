/**
 * The two event triggers VS Code's own Automations lack: **diagnostics** (new problems appeared in
 * matching files) and **git HEAD moved** (commit, checkout, pull). Both are debounced and coalesced
 * per chore like file triggers: a language server republishes diagnostics in waves and a pull moves
 * HEAD several times, and each burst must be one run. The host feeds raw events; everything that
 * decides whether and when a chore fires is here, so it is tested without VS Code.
 */
import { compileGlob } from '../approval/changes/textMatch';
import type { Clock } from '../ports';
import type { ChoreFireContext } from './fireContext';
import type { ChoreDefinition } from './types';

/** Default quiet time of a diagnostics trigger: language servers publish in waves for a few seconds. */
export const defaultDiagnosticsDebounceMs = 3_000;
/** Default quiet time of a git trigger: a pull or rebase moves HEAD several times in a row. */
export const defaultGitDebounceMs = 2_000;

/**
 * A workspace-relative trigger glob as a matcher: `**` any depth, `*` and `?` within a segment,
 * `{a,b}` alternatives; a glob without `/` matches at the root, as VS Code's RelativePattern does.
 * It runs on RE2 (src/core/approval/changes/textMatch.ts) like every other glob: a chores.yaml glob must
 * not be able to make a backtracking RegExp spin on the host thread.
 */
export function globMatch(glob: string): (relativePath: string) => boolean {
  return compileGlob(glob, { baseNameAnyDepth: false });
}

interface Pending<B> {
  burst: B;
  timer: { cancel(): void };
  deadline: number;
}

/**
 * Per-chore debounce and coalescing: events for one chore merge into one burst, fired once they
 * have been quiet for the chore's debounce, or at the latest after max(10 × debounce, 10 s).
 */
export class Coalescer<E, B> {
  private readonly pending = new Map<string, Pending<B>>();

  constructor(
    private readonly clock: Clock,
    private readonly merge: (burst: B | undefined, event: E) => B,
    private readonly onFire: (choreId: string, burst: B) => void,
  ) {}

  push(choreId: string, debounceMs: number, event: E): void {
    const now = this.clock.now();
    const current = this.pending.get(choreId);
    current?.timer.cancel();
    const burst = this.merge(current?.burst, event);
    const deadline = current?.deadline ?? now + Math.max(debounceMs * 10, 10_000);
    const timer = this.clock.setTimeout(() => this.flush(choreId), Math.max(0, Math.min(debounceMs, deadline - now)));
    this.pending.set(choreId, { burst, timer, deadline });
  }

  cancel(choreId: string): void {
    this.pending.get(choreId)?.timer.cancel();
    this.pending.delete(choreId);
  }

  keys(): string[] {
    return [...this.pending.keys()];
  }

  dispose(): void {
    for (const id of this.keys()) this.cancel(id);
  }

  private flush(choreId: string): void {
    const entry = this.pending.get(choreId);
    if (!entry) return;
    this.pending.delete(choreId);
    this.onFire(choreId, entry.burst);
  }
}

/** The problems of one file at one moment, as the host reads them from `languages.getDiagnostics`. */
export interface FileProblems {
  /** Workspace-relative path. */
  path: string;
  errors: number;
  warnings: number;
  /** The first error's message (or warning's, when there is no error), for the run's context. */
  first?: string;
}

type DiagnosticsContext = Extract<ChoreFireContext, { kind: 'diagnostics' }>;

/**
 * Fires diagnostics chores when problems **appear**: a file's count at the chore's severity rises
 * above what it was (fixing errors, or a steady count republished, fires nothing). The first
 * report of a file counts from zero only after {@link prime}: the problems already there when
 * VS Code opens are the state the chore starts from, not news.
 */
export class DiagnosticsTrigger {
  private chores: Array<{ id: string; match: Array<(relativePath: string) => boolean>; severity: 'error' | 'warning'; debounceMs: number }> = [];
  private readonly last = new Map<string, { errors: number; warnings: number }>();
  private readonly coalescer: Coalescer<{ problems: FileProblems; count: number; severity: 'error' | 'warning' }, DiagnosticsContext>;

  constructor(clock: Clock, onFire: (choreId: string, context: DiagnosticsContext) => void) {
    this.coalescer = new Coalescer(
      clock,
      (burst, e) => {
        const files = burst?.files.filter((f) => f.path !== e.problems.path) ?? [];
        files.push({ path: e.problems.path, count: e.count, first: e.problems.first ?? '' });
        return { kind: 'diagnostics', severity: e.severity, files };
      },
      onFire,
    );
  }

  configure(definitions: readonly ChoreDefinition[]): void {
    this.chores = definitions.flatMap((c) =>
      c.trigger.kind === 'diagnostics'
        ? [{ id: c.id, match: c.trigger.globs.map(globMatch), severity: c.trigger.severity, debounceMs: c.trigger.debounceMs }]
        : [],
    );
    for (const id of this.coalescer.keys()) if (!this.chores.some((c) => c.id === id)) this.coalescer.cancel(id);
  }

  /** Records the problems already present (at start), so only new ones fire. */
  prime(files: readonly FileProblems[]): void {
    for (const f of files) this.last.set(f.path, { errors: f.errors, warnings: f.warnings });
  }

  /** Feeds the current problems of files whose diagnostics changed. Returns the chores pushed. */
  update(files: readonly FileProblems[]): string[] {
    const pushed: string[] = [];
    for (const f of files) {
      const before = this.last.get(f.path) ?? { errors: 0, warnings: 0 };
      if (f.errors === 0 && f.warnings === 0) this.last.delete(f.path);
      else this.last.set(f.path, { errors: f.errors, warnings: f.warnings });
      for (const chore of this.chores) {
        if (!chore.match.some((m) => m(f.path))) continue;
        // Severity `warning` means warnings or worse.
        const now = chore.severity === 'error' ? f.errors : f.errors + f.warnings;
        const was = chore.severity === 'error' ? before.errors : before.errors + before.warnings;
        if (now <= was) continue;
        this.coalescer.push(chore.id, chore.debounceMs, { problems: f, count: now, severity: chore.severity });
        pushed.push(chore.id);
      }
    }
    return pushed;
  }

  dispose(): void {
    this.coalescer.dispose();
  }
}

type GitContext = Extract<ChoreFireContext, { kind: 'git' }>;

/** One observation of the repository's HEAD (the git extension's `repository.state`). */
export interface HeadState {
  commit: string | undefined;
  branch: string | undefined;
}

/**
 * Fires git chores when HEAD moves. Consecutive moves within the debounce are one fire from the
 * first HEAD to the last; a move back to where it started (a checkout there and back) fires nothing.
 * What moved it is inferred: a new branch is a checkout; the same branch is a commit, or a pull
 * when the host says the move came with a fetch.
 */
export class GitHeadTrigger {
  private chores: Array<{ id: string; debounceMs: number }> = [];
  private head: HeadState | undefined;
  private readonly coalescer: Coalescer<{ from: HeadState; to: HeadState; pulled: boolean }, GitContext & { fromBranch?: string }>;

  constructor(clock: Clock, onFire: (choreId: string, context: GitContext) => void) {
    this.coalescer = new Coalescer(
      clock,
      (burst, e) => {
        const from = burst ? { commit: burst.from, branch: burst.fromBranch } : e.from;
        const change: GitContext['change'] =
          from.branch !== e.to.branch ? 'checkout' : e.pulled || burst?.change === 'pull' ? 'pull' : burst?.change === 'checkout' ? 'checkout' : 'commit';
        return {
          kind: 'git',
          change,
          ...(from.commit ? { from: from.commit } : {}),
          to: e.to.commit ?? '',
          ...(e.to.branch ? { branch: e.to.branch } : {}),
          ...(from.branch ? { fromBranch: from.branch } : {}),
        };
      },
      (choreId, burst) => {
        const { fromBranch: _from, ...context } = burst;
        if (context.from === context.to) return; // there and back again
        onFire(choreId, context);
      },
    );
  }

  configure(definitions: readonly ChoreDefinition[]): void {
    this.chores = definitions.flatMap((c) => (c.trigger.kind === 'git' ? [{ id: c.id, debounceMs: c.trigger.debounceMs }] : []));
    for (const id of this.coalescer.keys()) if (!this.chores.some((c) => c.id === id)) this.coalescer.cancel(id);
  }

  /** Feeds the current HEAD; the first observation only sets the baseline. Returns the chores pushed. */
  observe(state: HeadState, options: { pulled?: boolean } = {}): string[] {
    const before = this.head;
    this.head = { ...state };
    if (!before || !state.commit || (before.commit === state.commit && before.branch === state.branch)) return [];
    for (const chore of this.chores) this.coalescer.push(chore.id, chore.debounceMs, { from: before, to: state, pulled: options.pulled === true });
    return this.chores.map((c) => c.id);
  }

  dispose(): void {
    this.coalescer.dispose();
  }
}
