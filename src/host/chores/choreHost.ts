import * as vscode from 'vscode';
import type { Ledger } from '../../core/actions/ledger';
import { parseChoresFile, choresFilePath } from '../../core/chores/choreFile';
import type { ChoresFileResult } from '../../core/chores/choreFile';
import { ChoreRunner } from '../../core/chores/choreRunner';
import type { ReviewLinkPort } from '../../core/chores/reviewNotice';
import { ChoreScheduler } from '../../core/chores/choreScheduler';
import { previewChore } from '../../core/chores/chorePreview';
import type { ChorePreview } from '../../core/chores/chorePreview';
import { FileTriggerDebouncer, OwnEditTracker, burstContext } from '../../core/chores/fileTriggers';
import type { ChoreFireContext } from '../../core/chores/fireContext';
import { ChoreRunLog, DbRunPersistence } from '../../core/chores/runLog';
import type { ChoreRunRecord } from '../../core/chores/runLog';
import { DbSchedulePersistence } from '../../core/chores/schedulePersistence';
import { TaskTriggerMatcher } from '../../core/chores/taskTriggers';
import { DiagnosticsTrigger, GitHeadTrigger } from '../../core/chores/eventTriggers';
import type { Agent } from '../../core/engine/agent';
import type { Clock, Logger } from '../../core/ports';
import type { DurableDb, TriggerStore } from '../../core/store/types';
import type { ApprovalHostMessage } from '../../shared/approvalProtocol';
import type { ChoreHostMessage, ChoreRunView, ChoreView, ChoreWebviewMessage } from '../../shared/choreProtocol';
import type { SidebarSection } from '../sidebarSection';
import { ConsentStore } from '../../core/consent/consentStore';
import type { ConsentBackend, ConsentKind } from '../../core/consent/consentStore';
import { choreDefinitionHash } from '../../core/consent/definitionHash';
import { choreSecretKey, workspaceSecretScope } from '../../core/chores/secretScope';
import type { ChoreDefinition } from '../../core/chores/types';
import { toChoreView, toRunView } from './choreViews';
import { RunTraceFollower } from './runTraceFollower';
import { GitHeadWatcher, problemsOf, toDiagnostic, watchChoreGlobs } from './choreWatchers';
import { ChoreSpendLedger, DbSpendPersistence } from '../../core/chores/spendLedger';
import type { ChoreSettings } from '../settings';

/**
 * SecretStorage key of the named chore secret (`urlSecret`, `smtpSecret` in chores.yaml) in THIS
 * workspace: a secret set in one workspace is invisible to every other (core/chores/secretScope.ts).
 */
export function workspaceSecretKey(name: string): string {
  const workspace = vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  return choreSecretKey(workspaceSecretScope(workspace?.toString() ?? 'no-folder'), name);
}

/** Chores are consented per workspace and per definition (see core/consent). */
const CHORE: ConsentKind = 'chore';

/** Why a chore without consent does not run, for the sidebar and Run now. */
const consentProblem = 'Not enabled on this machine: it came with the workspace or changed since you enabled it. Review what it does, then Enable it.';

/** What the chore host is built from, once the store is open (src/host/storeServices.ts). */
export interface ChoreHostDeps {
  db: DurableDb;
  triggers: TriggerStore;
  ledger: Ledger;
  clock: Clock;
  logger: Logger;
  /** Workspace Trust, read at each use: chores never run in an untrusted workspace. */
  trusted: () => boolean;
  secrets: vscode.SecretStorage;
  /** Where consent is kept: the workspace's state (workspaceState), never the repository. */
  consent: ConsentBackend;
  /** Applied to run steps, reasons and escalation payloads (security/redact.ts); default: credential shapes. */
  redact?: (text: string) => string;
  /** The first workspace folder (where `.tasklane/chores.yaml` lives); undefined when none is open. */
  root: vscode.Uri | undefined;
  /** Its name, for escalation messages. */
  workspaceName?: string;
  /** The master switch and the caps across chores (src/host/settings.ts), read at each use. */
  choreSettings?: () => ChoreSettings;
  /** Approval links for runs parked on a review (src/host/approvals/approvalLinks.ts). */
  reviewLinks?: ReviewLinkPort;
}

/** A chore and its recent runs, as `tasklane.getState` reports it (with `consent` and `review`). */
export interface ChoreStateView extends ChoreView {
  runs: ChoreRunView[];
}

/**
 * Chores in the VS Code host: loads `.tasklane/chores.yaml` (at start and on every change) with
 * line-precise diagnostics, feeds cron, file and task triggers to the core runner, and keeps the
 * sidebar's chore list and the open run's trace live. Chores never run in an untrusted workspace,
 * and only a chore the person consented to (for its current definition) is scheduled, watched or
 * run: one that came with the repository, or changed since, waits for Enable.
 */
export class ChoreHost implements SidebarSection<ChoreView, ChoreWebviewMessage>, vscode.Disposable {
  /** The engine hooks of chore runs (resolve fires, guard budgets, observe usage). */
  readonly runner: ChoreRunner;
  private readonly runLog: ChoreRunLog;
  private readonly scheduler: ChoreScheduler;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly trusted: () => boolean;
  private readonly root: vscode.Uri | undefined;
  private loaded: ChoresFileResult = { chores: [], disabled: [], diagnostics: [] };
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('tasklane-chores');
  private readonly ownEdits: OwnEditTracker;
  private readonly debouncer: FileTriggerDebouncer;
  private readonly matcher = new TaskTriggerMatcher();
  private readonly diagnosticsTrigger: DiagnosticsTrigger;
  private readonly gitTrigger: GitHeadTrigger;
  private readonly gitWatcher: GitHeadWatcher;
  private readonly disposables: vscode.Disposable[] = [];
  private fileWatchers: vscode.Disposable[] = [];
  private readonly listeners = new Set<(message: ChoreHostMessage) => void>();
  private readonly trace = new RunTraceFollower(
    (runId) => this.runLog.get(runId),
    (message) => this.post(message),
  );
  private scheduleStarted = false;
  /** Consent per workspace and per chore definition. */
  readonly consent: ConsentStore;
  /** What chores spent today and this month, and which a tripped cap paused. */
  readonly spend: ChoreSpendLedger;
  private readonly choreSettings: () => ChoreSettings;

  constructor(deps: ChoreHostDeps) {
    const { db, triggers, clock, logger } = deps;
    this.logger = logger;
    this.clock = clock;
    this.trusted = deps.trusted;
    this.root = deps.root;
    this.consent = new ConsentStore(deps.consent, () => clock.now());
    this.ownEdits = new OwnEditTracker(clock);
    this.debouncer = new FileTriggerDebouncer({
      clock,
      isOwnEdit: (choreId, path) => this.ownEdits.isOwnEdit(choreId, path),
      onFire: (burst) => void this.fire(burst.choreId, 'files', burstContext(burst)),
    });
    this.diagnosticsTrigger = new DiagnosticsTrigger(clock, (id, context) => void this.fire(id, 'diagnostics', context));
    this.gitTrigger = new GitHeadTrigger(clock, (id, context) => void this.fire(id, 'git', context));
    this.gitWatcher = new GitHeadWatcher(deps.root, logger, ({ head, pulled }) => {
      if (this.trusted()) this.gitTrigger.observe(head, { pulled });
    });
    this.runLog = new ChoreRunLog(new DbRunPersistence(db), clock);
    if (deps.redact) this.runLog.redact = deps.redact;
    this.spend = new ChoreSpendLedger(new DbSpendPersistence(db), () => clock.now());
    this.choreSettings = deps.choreSettings ?? (() => ({ enabled: true, maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 }));
    this.scheduler = new ChoreScheduler({
      triggers,
      clock,
      persistence: new DbSchedulePersistence(db, () => clock.now()),
      logger,
      onDropped: (id, dropped) => this.runner.recordDropped(id, dropped),
    });
    this.runner = new ChoreRunner({
      triggers,
      runLog: this.runLog,
      scheduler: this.scheduler,
      clock,
      logger,
      secrets: { getSecret: (name) => Promise.resolve(deps.secrets.get(workspaceSecretKey(name))) },
      ...(deps.redact ? { redact: deps.redact } : {}),
      ledger: deps.ledger,
      canRun: deps.trusted,
      spend: this.spend,
      workspaceLimits: () => this.choreSettings(),
      blocked: (id) => this.blockedReason(id),
      ...(deps.workspaceName !== undefined ? { workspaceName: deps.workspaceName } : {}),
      ...(deps.reviewLinks ? { reviewLinks: deps.reviewLinks } : {}),
    });
    this.runLog.onDidChange((run) => this.onRun(run));
    // A pause (a cap tripped) or a Resume shows on the chore's card at once.
    this.spend.onDidChangePause(() => void this.apply().catch((e) => this.logger.error('CHORE', 'could not refresh the chores after a pause', e)));
  }

  /** Why a fire of this chore may not run, beyond trust, `enabled: false` and a pause (the runner checks those). */
  private blockedReason(choreId: string): string | undefined {
    if (!this.choreSettings().enabled) return 'chores are switched off (setting tasklane.chores.enabled)';
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (!chore) return 'the chore is no longer defined in .tasklane/chores.yaml, or is invalid';
    if (this.consentOf(chore) === 'needed')
      return 'not enabled on this machine (its definition changed, or it came with the workspace): review it and Enable it';
    return undefined;
  }

  /** Lifts the pause a tripped budget put on a chore; says what it has spent against its caps. */
  async resume(choreId: string): Promise<string> {
    const resumed = await this.spend.resume(choreId);
    const own = this.spend.spent(choreId);
    const all = this.spend.spent();
    const caps = this.choreSettings();
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    const limits = chore?.spendLimits;
    const summary = `today $${own.day.toFixed(2)}${limits?.maxCostUsdPerDay !== undefined ? ` of $${limits.maxCostUsdPerDay}` : ''}, this month $${own.month.toFixed(2)}${limits?.maxCostUsdPerMonth !== undefined ? ` of $${limits.maxCostUsdPerMonth}` : ''}; all chores today $${all.day.toFixed(2)}${caps.maxCostUsdPerDay ? ` of $${caps.maxCostUsdPerDay}` : ''}, this month $${all.month.toFixed(2)}${caps.maxCostUsdPerMonth ? ` of $${caps.maxCostUsdPerMonth}` : ''}`;
    if (resumed) this.logger.info('CHORE', `chore ${choreId} resumed by the user (${summary})`);
    // A cap still reached stops the next run again at its first model call: say so now.
    const still = chore && this.spend.check(choreId, chore.spendLimits ?? {}, caps);
    return `${resumed ? 'Resumed' : 'Not paused'}: ${summary}${still && !still.ok ? `. Note: ${still.message}, so its next run will stop again; raise the cap or wait for the next period.` : ''}`;
  }

  /**
   * Once the agent exists, before its loop claims anything, so restored fires find their chores:
   * loads chores.yaml, attaches the runner, watches the file and task ends, starts the schedule.
   */
  async start(agent: Agent): Promise<void> {
    // Watch first, then read: a chores.yaml written while the agent starts is not missed.
    if (this.root) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.root, choresFilePath));
      const reload = () => void this.reload().catch((e) => this.logger.error('CHORE', 'could not reload chores.yaml', e));
      this.disposables.push(watcher, watcher.onDidChange(reload), watcher.onDidCreate(reload), watcher.onDidDelete(reload));
    }
    await this.reload();
    await agent.whenReady();
    await this.runner.attach(agent);
    this.disposables.push(
      vscode.tasks.onDidEndTaskProcess((e) => void this.onTaskEnd(e.execution.task.name, e.exitCode)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.startSchedule()),
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (this.trusted()) this.diagnosticsTrigger.update(e.uris.flatMap((uri) => problemsOf(this.root, uri)));
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tasklane.chores'))
          void this.apply().catch((error) => this.logger.error('CHORE', 'could not apply the chore settings', error));
      }),
    );
    // Problems already there when VS Code opens are the starting state, not news.
    this.diagnosticsTrigger.prime(vscode.languages.getDiagnostics().flatMap(([uri]) => problemsOf(this.root, uri)));
    await this.startSchedule();
  }

  /** Re-reads chores.yaml: diagnostics, runner, schedule, watchers, task matcher, sidebar. */
  async reload(): Promise<void> {
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
    const errors = this.loaded.diagnostics.filter((d) => d.severity === 'error').length;
    this.logger.info(
      'CHORE',
      `chores.yaml: ${this.loaded.chores.length} chore(s) loaded${this.loaded.disabled.length ? `, disabled: ${this.loaded.disabled.join(', ')}` : ''}${errors ? ` (${errors} error(s))` : ''}`,
    );
    await this.apply(before);
  }

  /** Whether the person consented to this chore's current definition on this machine. */
  consentOf(chore: ChoreDefinition): 'given' | 'needed' {
    return this.consent.status(CHORE, chore.id, choreDefinitionHash(chore));
  }

  /**
   * Enables a chore: records consent for the definition the person saw. `hash` is the
   * `review.definitionHash` that was shown; when the definition changed since, nothing is enabled.
   */
  async enable(choreId: string, hash: string): Promise<void> {
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (!chore) throw new Error(`There is no valid chore "${choreId}" in .tasklane/chores.yaml; check its id and the problems shown on the file.`);
    if (choreDefinitionHash(chore) !== hash) throw new Error(`The chore "${choreId}" changed since it was shown; review it again before enabling it.`);
    await this.consent.give(CHORE, choreId, hash, 'enabled');
    this.logger.info('CHORE', `chore ${choreId} enabled by the user (definition ${hash.slice(0, 12)})`);
    await this.apply();
  }

  /** Disables a chore (withdraws consent); a run in progress stops at its next step. */
  async disable(choreId: string): Promise<boolean> {
    const revoked = await this.consent.revoke(CHORE, choreId);
    if (revoked) this.logger.info('CHORE', `chore ${choreId} disabled by the user`);
    await this.apply();
    return revoked;
  }

  /** New Chore wrote this chore on this machine: the person's own, consented at creation. */
  async created(choreId: string): Promise<void> {
    await this.reload();
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (!chore) return;
    await this.consent.give(CHORE, choreId, choreDefinitionHash(chore), 'created');
    await this.apply();
  }

  /** Next fires and a dry run of a valid chore (Preview Chore); no model is called. */
  preview(choreId: string, count = 5): { chore: ChoreDefinition; preview: ChorePreview } | undefined {
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (!chore) return undefined;
    const caps = this.choreSettings();
    return {
      chore,
      preview: previewChore(chore, {
        now: this.clock.now(),
        count,
        spend: this.spend,
        workspaceLimits: { maxCostUsdPerDay: caps.maxCostUsdPerDay, maxCostUsdPerMonth: caps.maxCostUsdPerMonth },
      }),
    };
  }

  /** What a chore does, for the Enable confirmation. */
  review(choreId: string): { chore: ChoreDefinition; consent: 'given' | 'needed' } | undefined {
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    return chore ? { chore, consent: this.consentOf(chore) } : undefined;
  }

  /** Hands only consented chores to the runner, schedule, watchers and task matcher; patches the sidebar. */
  private async apply(before: Set<string> = new Set()): Promise<void> {
    const runnable = this.loaded.chores.filter((c) => this.consentOf(c) === 'given');
    const waiting = this.loaded.chores.filter((c) => !runnable.includes(c)).map((c) => c.id);
    if (waiting.length)
      this.logger.info('CHORE', `waiting for the user to enable: ${waiting.join(', ')} (shipped with the workspace or changed since enabled)`);
    this.runner.setChores(runnable);
    this.scheduler.setChores(runnable);
    this.matcher.configure(runnable);
    this.diagnosticsTrigger.configure(runnable);
    this.gitTrigger.configure(runnable);
    if (runnable.some((c) => c.trigger.kind === 'git')) void this.gitWatcher.start().catch((e) => this.logger.error('CHORE', 'could not follow git HEAD', e));
    this.debouncer.configure(runnable.flatMap((c) => (c.trigger.kind === 'files' ? [{ id: c.id, debounceMs: c.trigger.debounceMs }] : [])));
    this.watchFiles(runnable);
    const views = await this.list();
    for (const view of views) this.post({ type: 'chorePatch', chore: view });
    for (const id of before) if (!views.some((v) => v.id === id)) this.post({ type: 'choreRemoved', id });
  }

  /** Run now (palette, sidebar): a durable fire like any other. */
  async runNow(choreId: string): Promise<string> {
    if (!this.trusted()) throw new Error('Chores do not run in Restricted Mode: trust this folder (Manage Workspace Trust) first.');
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (chore && this.consentOf(chore) === 'needed')
      throw new Error(
        `The chore "${choreId}" is not enabled on this machine: review what it does and enable it (sidebar Enable, or "Tasklane: Enable Chore") first.`,
      );
    const stopped = chore && this.stoppedProblem(chore);
    if (stopped) throw new Error(`The chore "${choreId}" does not run now: ${stopped}`);
    return this.runner.fire(choreId, 'manual');
  }

  /** Ids and names of the chores that can run now (valid and consented). */
  enabledChores(): Array<{ id: string; name: string }> {
    return this.loaded.chores.filter((c) => this.consentOf(c) === 'given').map((c) => ({ id: c.id, name: c.name }));
  }

  /** Every valid chore, with where its consent stands (for Enable / Disable pickers and New Chore's id check). */
  validChores(): Array<{ id: string; name: string; consent: 'given' | 'needed' }> {
    return this.loaded.chores.map((c) => ({ id: c.id, name: c.name, consent: this.consentOf(c) }));
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
    this.noteOwnWrite(
      message.approval.choreId,
      message.approval.files.flatMap((f) => [f.path, ...(f.newPath ? [f.newPath] : [])]),
    );
  }

  onDidPost(listener: (message: ChoreHostMessage) => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  async list(): Promise<ChoreView[]> {
    const restricted = !this.trusted();
    const views = this.loaded.chores.map((chore) => {
      const consent = this.consentOf(chore);
      const stopped = this.stoppedProblem(chore);
      return toChoreView(chore, {
        enabled: !restricted && consent === 'given' && !stopped,
        consent,
        ...(this.spend.paused(chore.id) ? { paused: this.spend.paused(chore.id)!.reason } : {}),
        ...(restricted
          ? { problem: 'Restricted Mode: chores do not run until you trust this folder.' }
          : consent === 'needed'
            ? { problem: consentProblem }
            : stopped
              ? { problem: stopped }
              : {}),
        ...(this.scheduler.nextFireAt(chore.id) !== undefined ? { nextFireAt: this.scheduler.nextFireAt(chore.id) } : {}),
        ...(this.runLog.history(chore.id)[0] ? { lastRun: this.runLog.history(chore.id)[0] } : {}),
        recent: this.runLog.history(chore.id),
      });
    });
    for (const id of this.loaded.disabled) {
      const first = this.loaded.diagnostics.find((d) => d.choreId === id && d.severity === 'error');
      views.push({
        id,
        name: id,
        trigger: '(invalid)',
        enabled: false,
        problem: first ? `line ${first.line}: ${first.message}` : 'invalid; see the problems on .tasklane/chores.yaml',
      });
    }
    return views;
  }

  /** Why a consented chore does not run now: the master switch, `enabled: false`, a budget pause. */
  private stoppedProblem(chore: ChoreDefinition): string | undefined {
    if (!this.choreSettings().enabled) return 'Chores are switched off (setting tasklane.chores.enabled).';
    if (chore.enabled === false) return 'Disabled in .tasklane/chores.yaml (enabled: false).';
    const paused = this.spend.paused(chore.id);
    if (paused) return `Paused: ${paused.reason}. Resume it to run again.`;
    return undefined;
  }

  /** For `tasklane.getState`: every chore with its last runs. */
  async state(): Promise<ChoreStateView[]> {
    const views = await this.list();
    return views.map((view) => ({ ...view, runs: this.runLog.history(view.id).slice(0, 5).map(toRunView) }));
  }

  /** The full record of a run (trace included), for tests and the sidebar. */
  run(runId: string): ChoreRunRecord | undefined {
    return this.runLog.get(runId);
  }

  async handle(message: ChoreWebviewMessage): Promise<ChoreHostMessage | undefined> {
    switch (message.type) {
      case 'chore.runNow':
        await this.runNow(message.id);
        return undefined;
      case 'chore.openRun':
        return this.trace.openRun(message.runId);
      case 'chore.new':
        await vscode.commands.executeCommand('tasklane.newChore');
        return undefined;
      case 'chore.enable':
        await this.enable(message.id, message.hash);
        return undefined;
      case 'chore.disable':
        await this.disable(message.id);
        return undefined;
      case 'chore.resume':
        void vscode.window.showInformationMessage(`Tasklane: ${await this.resume(message.id)}`);
        return undefined;
      case 'chore.openFile': {
        const uri = this.fileUri();
        if (uri) await vscode.window.showTextDocument(uri);
        return undefined;
      }
    }
  }

  dispose(): void {
    this.scheduler.stop();
    this.runner.dispose();
    this.debouncer.dispose();
    this.diagnosticsTrigger.dispose();
    this.gitTrigger.dispose();
    this.gitWatcher.dispose();
    for (const d of [...this.fileWatchers, ...this.disposables]) d.dispose();
    this.diagnostics.dispose();
  }

  private async startSchedule(): Promise<void> {
    if (this.scheduleStarted || !this.trusted()) return;
    this.scheduleStarted = true;
    await this.scheduler.start();
  }

  private async fire(choreId: string, cause: 'files' | 'task' | 'diagnostics' | 'git', context: ChoreFireContext): Promise<void> {
    if (!this.trusted()) return;
    try {
      await this.runner.fire(choreId, cause, context);
    } catch (error) {
      this.logger.error('CHORE', `chore ${choreId}: the fire could not be recorded`, error);
    }
  }

  private async onTaskEnd(name: string, exitCode: number | undefined): Promise<void> {
    // Untrusted: not even a chore's `when` is evaluated (it is repository-shipped code, time-boxed or not).
    if (!this.trusted()) return;
    for (const id of await this.matcher.match({ name, exitCode })) await this.fire(id, 'task', { kind: 'task', name, exitCode });
  }

  /** One watcher per glob of each consented files chore; events are debounced and coalesced per chore. */
  private watchFiles(chores: readonly ChoreDefinition[]): void {
    for (const d of this.fileWatchers) d.dispose();
    this.fileWatchers = watchChoreGlobs(this.root, chores, (choreId, path, change) => {
      if (this.trusted()) this.debouncer.push(choreId, path, change);
    });
  }

  private onRun(run: ChoreRunRecord): void {
    const chore = this.loaded.chores.find((c) => c.id === run.choreId);
    this.post({ type: 'choreRunPatch', run: toRunView(run) });
    if (chore) {
      const next = this.scheduler.nextFireAt(chore.id);
      const consent = this.consentOf(chore);
      const stopped = this.stoppedProblem(chore);
      const paused = this.spend.paused(chore.id);
      this.post({
        type: 'chorePatch',
        chore: toChoreView(chore, {
          enabled: this.trusted() && consent === 'given' && !stopped,
          consent,
          ...(stopped ? { problem: stopped } : {}),
          ...(paused ? { paused: paused.reason } : {}),
          lastRun: this.runLog.history(chore.id)[0] ?? run,
          recent: this.runLog.history(chore.id),
          ...(next !== undefined ? { nextFireAt: next } : {}),
        }),
      });
    }
    this.trace.changed(run);
  }

  private post(message: ChoreHostMessage): void {
    for (const listener of this.listeners) listener(message);
  }
}
