import * as vscode from 'vscode';
import { Ledger } from '../../core/actions/ledger';
import { parseChoresFile, choresFilePath } from '../../core/chores/choreFile';
import type { ChoresFileResult } from '../../core/chores/choreFile';
import { ChoreRunner } from '../../core/chores/choreRunner';
import { ChoreScheduler } from '../../core/chores/choreScheduler';
import { FileTriggerDebouncer, OwnEditTracker } from '../../core/chores/fileTriggers';
import { ChoreRunLog, DbRunPersistence } from '../../core/chores/runLog';
import type { ChoreRunRecord } from '../../core/chores/runLog';
import { DbSchedulePersistence } from '../../core/chores/schedulePersistence';
import { TaskTriggerMatcher } from '../../core/chores/taskTriggers';
import type { ChoreDiagnostic } from '../../core/chores/types';
import type { ActionDef } from '../../core/actions/types';
import type { Agent } from '../../core/engine/agent';
import type { TaskHooks } from '../../core/engine/taskHooks';
import type { Logger } from '../../core/ports';
import { systemClock } from '../../core/ports';
import type { ApprovalHostMessage } from '../../shared/approvalProtocol';
import type { ChoreHostMessage, ChoreRunView, ChoreView, ChoreWebviewMessage } from '../../shared/choreProtocol';
import type { RuntimeBase, RuntimeExtension } from '../runtime';
import type { SidebarSection } from '../sidebarBackend';
import { toChoreView, toRunView, toStepView } from './choreViews';

/** SecretStorage key of a named chore secret (`urlSecret`, `smtpSecret` in chores.yaml). */
export const choreSecretKey = (name: string): string => `tasklane.secret.${name}`;

interface Parts {
  runner: ChoreRunner;
  runLog: ChoreRunLog;
  scheduler: ChoreScheduler;
}

/** A chore and its recent runs, as `tasklane.getState` reports it. */
export interface ChoreStateView extends ChoreView {
  runs: ChoreRunView[];
}

/**
 * Chores in the VS Code host: loads `.tasklane/chores.yaml` (at start and on every change) with
 * line-precise diagnostics, feeds cron, file and task triggers to the core runner, and keeps the
 * sidebar's chore list and the open run's trace live. Chores never run in an untrusted workspace.
 */
export class ChoreHost implements SidebarSection<ChoreView, ChoreWebviewMessage>, RuntimeExtension, vscode.Disposable {
  private parts: Parts | undefined;
  private loaded: ChoresFileResult = { chores: [], disabled: [], diagnostics: [] };
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('tasklane-chores');
  private readonly ownEdits = new OwnEditTracker(systemClock);
  private readonly debouncer = new FileTriggerDebouncer({
    clock: systemClock,
    isOwnEdit: (choreId, path) => this.ownEdits.isOwnEdit(choreId, path),
    onFire: (burst) => void this.fire(burst.choreId, 'files', `${burst.paths.length} file(s) changed (${burst.events} events): ${burst.paths.slice(0, 5).join(', ')}`),
  });
  private readonly matcher = new TaskTriggerMatcher();
  private readonly disposables: vscode.Disposable[] = [];
  private fileWatchers: vscode.Disposable[] = [];
  private readonly listeners = new Set<(message: ChoreHostMessage) => void>();
  private openRun: { runId: string; seen: Map<number, string> } | undefined;
  private scheduleStarted = false;

  constructor(
    private readonly logger: Logger,
    readonly secrets: vscode.SecretStorage,
    private readonly root: vscode.Uri | undefined = vscode.workspace.workspaceFolders?.[0]?.uri,
  ) {}

  /** RuntimeExtension: chores add no actions of their own (their tasks use the edit and command sets). */
  actions(): ActionDef[] {
    return [];
  }

  /** RuntimeExtension: builds the runner on the open store; its hooks go to the agent. */
  taskHooks(core: Pick<RuntimeBase, 'db' | 'triggers'>): TaskHooks {
    const runLog = new ChoreRunLog(new DbRunPersistence(core.db), systemClock);
    const scheduler = new ChoreScheduler({ triggers: core.triggers, clock: systemClock, persistence: new DbSchedulePersistence(core.db, () => systemClock.now()), logger: this.logger });
    const runner = new ChoreRunner({
      triggers: core.triggers,
      runLog,
      scheduler,
      clock: systemClock,
      logger: this.logger,
      secrets: { getSecret: (name) => Promise.resolve(this.secrets.get(choreSecretKey(name))) },
      ledger: new Ledger(core.db, systemClock),
      canRun: () => vscode.workspace.isTrusted,
      ...(vscode.workspace.workspaceFolders?.[0] ? { workspaceName: vscode.workspace.workspaceFolders[0].name } : {}),
    });
    runLog.onDidChange((run) => this.onRun(run));
    this.parts = { runner, runLog, scheduler };
    return runner;
  }

  /** RuntimeExtension: once the agent exists, before its loop claims anything, so restored fires find their chores. */
  async agentCreated(agent: Agent): Promise<void> {
    const parts = this.require();
    await this.reload();
    await agent.whenReady();
    await parts.runner.attach(agent);
    if (this.root) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.root, choresFilePath));
      const reload = () => void this.reload().catch((e) => this.logger.error('CHORE', 'could not reload chores.yaml', e));
      this.disposables.push(watcher, watcher.onDidChange(reload), watcher.onDidCreate(reload), watcher.onDidDelete(reload));
    }
    this.disposables.push(
      vscode.tasks.onDidEndTaskProcess((e) => void this.onTaskEnd(e.execution.task.name, e.exitCode)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.startSchedule()),
    );
    await this.startSchedule();
  }

  /** Re-reads chores.yaml: diagnostics, runner, schedule, watchers, task matcher, sidebar. */
  async reload(): Promise<void> {
    const parts = this.require();
    let text = '';
    const uri = this.fileUri();
    if (uri) {
      try {
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      } catch {
        text = ''; // No chores.yaml: no chores.
      }
    }
    const before = new Set([...this.loaded.chores.map((c) => c.id), ...this.loaded.disabled]);
    this.loaded = parseChoresFile(text);
    if (uri) this.diagnostics.set(uri, this.loaded.diagnostics.map(toDiagnostic));
    parts.runner.setChores(this.loaded.chores);
    parts.scheduler.setChores(this.loaded.chores);
    this.matcher.configure(this.loaded.chores);
    this.debouncer.configure(this.loaded.chores.flatMap((c) => (c.trigger.kind === 'files' ? [{ id: c.id, debounceMs: c.trigger.debounceMs }] : [])));
    this.watchFiles();
    const errors = this.loaded.diagnostics.filter((d) => d.severity === 'error').length;
    this.logger.info('CHORE', `chores.yaml: ${this.loaded.chores.length} chore(s) loaded${this.loaded.disabled.length ? `, disabled: ${this.loaded.disabled.join(', ')}` : ''}${errors ? ` (${errors} error(s))` : ''}`);
    const views = await this.list();
    for (const view of views) this.post({ type: 'chorePatch', chore: view });
    for (const id of before) if (!views.some((v) => v.id === id)) this.post({ type: 'choreRemoved', id });
  }

  /** Run now (palette, sidebar): a durable fire like any other. */
  async runNow(choreId: string): Promise<string> {
    if (!vscode.workspace.isTrusted) throw new Error('Chores do not run in Restricted Mode: trust this folder (Manage Workspace Trust) first.');
    return this.require().runner.fire(choreId, 'manual');
  }

  /** Ids and names of the chores that can run now. */
  enabledChores(): Array<{ id: string; name: string }> {
    return this.loaded.chores.map((c) => ({ id: c.id, name: c.name }));
  }

  fileUri(): vscode.Uri | undefined {
    return this.root ? vscode.Uri.joinPath(this.root, choresFilePath) : undefined;
  }

  /** The chore's own applied edits: the watcher events they cause must not fire it again. */
  noteOwnWrite(choreId: string, paths: readonly string[]): void {
    this.ownEdits.noteWrite(choreId, paths);
  }

  /** Follows approval cards: a chore's applied proposal changes files its own globs may watch. */
  followApprovals(message: ApprovalHostMessage): void {
    if (message.type !== 'approvalPatch' || !message.approval.choreId) return;
    if (!['approved', 'applied', 'partially_applied'].includes(message.approval.status)) return;
    this.noteOwnWrite(message.approval.choreId, message.approval.files.flatMap((f) => [f.path, ...(f.newPath ? [f.newPath] : [])]));
  }

  onDidPost(listener: (message: ChoreHostMessage) => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  async list(): Promise<ChoreView[]> {
    const parts = this.parts;
    const restricted = !vscode.workspace.isTrusted;
    const views = this.loaded.chores.map((chore) =>
      toChoreView(chore, {
        enabled: !restricted,
        ...(restricted ? { problem: 'Restricted Mode: chores do not run until you trust this folder.' } : {}),
        ...(parts?.scheduler.nextFireAt(chore.id) !== undefined ? { nextFireAt: parts.scheduler.nextFireAt(chore.id) } : {}),
        ...(parts?.runLog.history(chore.id)[0] ? { lastRun: parts.runLog.history(chore.id)[0] } : {}),
      }),
    );
    for (const id of this.loaded.disabled) {
      const first = this.loaded.diagnostics.find((d) => d.choreId === id && d.severity === 'error');
      views.push({ id, name: id, trigger: '(invalid)', enabled: false, problem: first ? `line ${first.line}: ${first.message}` : 'invalid; see the problems on .tasklane/chores.yaml' });
    }
    return views;
  }

  /** For `tasklane.getState`: every chore with its last runs. */
  async state(): Promise<ChoreStateView[]> {
    const views = await this.list();
    return views.map((view) => ({ ...view, runs: (this.parts?.runLog.history(view.id) ?? []).slice(0, 5).map(toRunView) }));
  }

  /** The full record of a run (trace included), for tests and the sidebar. */
  run(runId: string): ChoreRunRecord | undefined {
    return this.parts?.runLog.get(runId);
  }

  async handle(message: ChoreWebviewMessage): Promise<ChoreHostMessage | undefined> {
    switch (message.type) {
      case 'chore.runNow':
        await this.runNow(message.id);
        return undefined;
      case 'chore.openRun': {
        const run = this.parts?.runLog.get(message.runId);
        if (!run) return { type: 'choreRunSteps', runId: message.runId, steps: [] };
        this.openRun = { runId: run.runId, seen: new Map(run.steps.map((s) => [s.id, JSON.stringify(s)])) };
        return { type: 'choreRunSteps', runId: run.runId, steps: run.steps.map(toStepView) };
      }
      case 'chore.new':
        await vscode.commands.executeCommand('tasklane.newChore');
        return undefined;
      case 'chore.openFile': {
        const uri = this.fileUri();
        if (uri) await vscode.window.showTextDocument(uri);
        return undefined;
      }
    }
  }

  dispose(): void {
    this.parts?.scheduler.stop();
    this.parts?.runner.dispose();
    this.debouncer.dispose();
    for (const d of [...this.fileWatchers, ...this.disposables]) d.dispose();
    this.diagnostics.dispose();
  }

  private async startSchedule(): Promise<void> {
    if (this.scheduleStarted || !vscode.workspace.isTrusted) return;
    this.scheduleStarted = true;
    await this.require().scheduler.start();
  }

  private async fire(choreId: string, cause: 'files' | 'task', detail: string): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    try {
      await this.require().runner.fire(choreId, cause, detail);
    } catch (error) {
      this.logger.error('CHORE', `chore ${choreId}: the fire could not be recorded`, error);
    }
  }

  private async onTaskEnd(name: string, exitCode: number | undefined): Promise<void> {
    for (const id of await this.matcher.match({ name, exitCode })) await this.fire(id, 'task', `task ${name} exited ${exitCode ?? '(terminated)'}`);
  }

  /** One watcher per glob of each files chore; events are debounced and coalesced per chore. */
  private watchFiles(): void {
    for (const d of this.fileWatchers) d.dispose();
    this.fileWatchers = [];
    const root = this.root;
    if (!root) return;
    for (const chore of this.loaded.chores) {
      if (chore.trigger.kind !== 'files') continue;
      for (const glob of chore.trigger.globs) {
        const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, glob));
        const push = (uri: vscode.Uri) => {
          if (vscode.workspace.isTrusted) this.debouncer.push(chore.id, vscode.workspace.asRelativePath(uri, false));
        };
        this.fileWatchers.push(watcher, watcher.onDidChange(push), watcher.onDidCreate(push), watcher.onDidDelete(push));
      }
    }
  }

  private onRun(run: ChoreRunRecord): void {
    const chore = this.loaded.chores.find((c) => c.id === run.choreId);
    this.post({ type: 'choreRunPatch', run: toRunView(run) });
    if (chore) {
      const next = this.parts?.scheduler.nextFireAt(chore.id);
      this.post({ type: 'chorePatch', chore: toChoreView(chore, { enabled: vscode.workspace.isTrusted, lastRun: this.parts?.runLog.history(chore.id)[0] ?? run, ...(next !== undefined ? { nextFireAt: next } : {}) }) });
    }
    // A new run of the chore whose trace is open: follow it.
    if (this.openRun && this.openRun.runId !== run.runId && this.parts?.runLog.get(this.openRun.runId)?.choreId === run.choreId && run.status === 'running' && run.steps.length === 0) {
      this.openRun = { runId: run.runId, seen: new Map() };
      this.post({ type: 'choreRunSteps', runId: run.runId, steps: [] });
    }
    if (this.openRun?.runId !== run.runId) return;
    for (const step of run.steps) {
      const json = JSON.stringify(step);
      if (this.openRun.seen.get(step.id) === json) continue;
      this.openRun.seen.set(step.id, json);
      this.post({ type: 'choreStepPatch', runId: run.runId, step: toStepView(step) });
    }
  }

  private post(message: ChoreHostMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  private require(): Parts {
    if (!this.parts) throw new Error('Chores are not ready yet: the store is still opening. Try again in a moment.');
    return this.parts;
  }
}

function toDiagnostic(d: ChoreDiagnostic): vscode.Diagnostic {
  const range = new vscode.Range(d.line - 1, d.column - 1, d.endLine - 1, d.endColumn - 1);
  const diagnostic = new vscode.Diagnostic(range, d.message, d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  diagnostic.source = 'Tasklane chores';
  return diagnostic;
}
