/**
 * Everything in VS Code that fires a consented chore besides its cron schedule and Run now: its
 * file globs (debounced and coalesced per chore, the chore's own applied edits ignored), VS Code
 * task ends (with the chore's exit condition), new problems and git HEAD moves. It composes the
 * core's debouncers and matchers with the VS Code event sources of choreWatchers.ts and hands
 * each fire to the runner. In an untrusted workspace nothing fires, and not even a chore's `when`
 * is evaluated. Kept out of ChoreHost so the host only wires.
 */
import * as vscode from 'vscode';
import { DiagnosticsTrigger, GitHeadTrigger } from '../../core/chores/eventTriggers';
import { FileTriggerDebouncer, OwnEditTracker, burstContext } from '../../core/chores/fileTriggers';
import type { ChoreFireContext } from '../../core/chores/fireContext';
import { TaskTriggerMatcher } from '../../core/chores/taskTriggers';
import type { ChoreDefinition } from '../../core/chores/types';
import type { Clock, Logger } from '../../core/ports';
import type { ApprovalHostMessage } from '../../shared/approvalProtocol';
import { GitHeadWatcher, problemsOf, watchChoreGlobs } from './choreWatchers';

/** What the fire sources are built from (a part of ChoreHost's). */
export interface ChoreFireSourcesDeps {
  /** The workspace folder the globs and the git repository are under; undefined when none is open. */
  root: vscode.Uri | undefined;
  clock: Clock;
  logger: Logger;
  /** Workspace Trust, read at each event: nothing fires in an untrusted workspace. */
  trusted: () => boolean;
  /** Records a fire (the runner's `fire`); a failure is logged here, not thrown. */
  fire: (choreId: string, cause: 'files' | 'task' | 'diagnostics' | 'git', context: ChoreFireContext) => Promise<unknown>;
}

/** The event triggers of the consented chores. */
export class ChoreFireSources implements vscode.Disposable {
  private readonly ownEdits: OwnEditTracker;
  private readonly debouncer: FileTriggerDebouncer;
  private readonly matcher = new TaskTriggerMatcher();
  private readonly diagnosticsTrigger: DiagnosticsTrigger;
  private readonly gitTrigger: GitHeadTrigger;
  private readonly gitWatcher: GitHeadWatcher;
  private fileWatchers: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: ChoreFireSourcesDeps) {
    const { clock } = deps;
    this.ownEdits = new OwnEditTracker(clock);
    this.debouncer = new FileTriggerDebouncer({
      clock,
      isOwnEdit: (choreId, path) => this.ownEdits.isOwnEdit(choreId, path),
      onFire: (burst) => void this.fire(burst.choreId, 'files', burstContext(burst)),
    });
    this.diagnosticsTrigger = new DiagnosticsTrigger(clock, (id, context) => void this.fire(id, 'diagnostics', context));
    this.gitTrigger = new GitHeadTrigger(clock, (id, context) => void this.fire(id, 'git', context));
    this.gitWatcher = new GitHeadWatcher(deps.root, deps.logger, ({ head, pulled }) => {
      if (deps.trusted()) this.gitTrigger.observe(head, { pulled });
    });
  }

  /** Follows exactly these chores (the consented ones) from now on: task matcher, problems, HEAD, file globs. */
  configure(runnable: readonly ChoreDefinition[]): void {
    this.matcher.configure(runnable);
    this.diagnosticsTrigger.configure(runnable);
    this.gitTrigger.configure(runnable);
    if (runnable.some((c) => c.trigger.kind === 'git'))
      void this.gitWatcher.start().catch((e) => this.deps.logger.error('CHORE', 'could not follow git HEAD', e));
    this.debouncer.configure(runnable.flatMap((c) => (c.trigger.kind === 'files' ? [{ id: c.id, debounceMs: c.trigger.debounceMs }] : [])));
    this.watchFiles(runnable);
  }

  /** Starts listening to task ends and problems; the problems already there are the starting state, not news. */
  listen(): void {
    const { root, trusted } = this.deps;
    this.disposables.push(
      vscode.tasks.onDidEndTaskProcess((e) => void this.onTaskEnd(e.execution.task.name, e.exitCode)),
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (trusted()) this.diagnosticsTrigger.update(e.uris.flatMap((uri) => problemsOf(root, uri)));
      }),
    );
    this.diagnosticsTrigger.prime(vscode.languages.getDiagnostics().flatMap(([uri]) => problemsOf(root, uri)));
  }

  /** A files chore's bursts so far and whether one is being collected (FileTriggerDebouncer.bursts). */
  fileBursts(choreId: string): { fired: number; collecting: boolean } | undefined {
    return this.debouncer.bursts(choreId);
  }

  /** The chore's own applied edits: the watcher events they cause must not fire it again. */
  noteOwnWrite(choreId: string, paths: readonly string[]): void {
    this.ownEdits.noteWrite(choreId, paths);
  }

  /** Follows approval cards: a chore's applied proposal changes files its own globs may watch. */
  followApprovals(message: ApprovalHostMessage): void {
    if (message.type !== 'approvalPatch' || !message.approval.choreId) return;
    if (!['approved', 'applied', 'partially_applied'].includes(message.approval.status)) return;
    this.noteOwnWrite(
      message.approval.choreId,
      message.approval.files.flatMap((f) => [f.path, ...(f.newPath ? [f.newPath] : [])]),
    );
  }

  dispose(): void {
    this.debouncer.dispose();
    this.diagnosticsTrigger.dispose();
    this.gitTrigger.dispose();
    this.gitWatcher.dispose();
    for (const d of [...this.fileWatchers, ...this.disposables]) d.dispose();
  }

  private async fire(choreId: string, cause: 'files' | 'task' | 'diagnostics' | 'git', context: ChoreFireContext): Promise<void> {
    if (!this.deps.trusted()) return;
    try {
      await this.deps.fire(choreId, cause, context);
    } catch (error) {
      this.deps.logger.error('CHORE', `chore ${choreId}: the fire could not be recorded`, error);
    }
  }

  private async onTaskEnd(name: string, exitCode: number | undefined): Promise<void> {
    // Untrusted: not even a chore's `when` is evaluated (it is repository-shipped code, time-boxed or not).
    if (!this.deps.trusted()) return;
    for (const id of await this.matcher.match({ name, exitCode })) await this.fire(id, 'task', { kind: 'task', name, exitCode });
  }

  /** One watcher per glob of each consented files chore; events are debounced and coalesced per chore. */
  private watchFiles(chores: readonly ChoreDefinition[]): void {
    for (const d of this.fileWatchers) d.dispose();
    this.fileWatchers = watchChoreGlobs(this.deps.root, chores, (choreId, path, change) => {
      if (this.deps.trusted()) this.debouncer.push(choreId, path, change);
    });
  }
}
