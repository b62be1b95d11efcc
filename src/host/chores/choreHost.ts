import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChoresFileResult } from '../../core/chores/choreFile';
import type { ChoreRunner } from '../../core/chores/choreRunner';
import type { ChoreScheduler } from '../../core/chores/choreScheduler';
import { costEstimateNote, previewChore } from '../../core/chores/chorePreview';
import type { ChorePreview, ModelCostContext } from '../../core/chores/chorePreview';
import type { ChoreRunLog, ChoreRunRecord } from '../../core/chores/runLog';
import { firesPerHourReached } from '../../core/chores/runGates';
import type { Agent } from '../../core/engine/agent';
import type { Clock, Logger } from '../../core/ports';
import type { ApprovalHostMessage } from '../../shared/approvalProtocol';
import type { ChoreHostMessage, ChoreView, ChoreWebviewMessage } from '../../shared/choreProtocol';
import type { SidebarSection } from '../sidebarSection';
import type { ConsentStore } from '../../core/consent/consentStore';
import { choreSecretKey, workspaceSecretScope } from '../../core/chores/secretScope';
import type { ChoreDefinition } from '../../core/chores/types';
import { replayedEvent } from './eventReplay';
import { handleChoreMessage } from './choreMessages';
import type { ChoreHostDeps, ChoreMcpPort } from './choreHostDeps';

export type { ChoreHostDeps, ChoreMcpPort } from './choreHostDeps';
import { ChoreConsent, notEnabledForRunNow, notEnabledReason } from './choreConsent';
import { choreCard, choreCards, toChoreReview, toRunView } from './choreViews';
import { resumeChore, stoppedProblem } from './choreSpend';
import { resumeParkedRun } from '../../core/chores/budgetPause';
import { choreSkillBodies } from '../../core/consent/definitionHash';
import type { ChoreReview } from '../../shared/choreProtocol';
import type { ChoreCardFacts, ChoreMcpFacts, ChoreStateView } from './choreViews';
import { RunTraceFollower } from './runTraceFollower';
import { ChoreFireSources } from './choreFireSources';
import { ChoresFileSource } from './choreWatchers';
import type { ChoreSpendLedger } from '../../core/chores/spendLedger';
import type { ChoreSettings } from '../settings';

/**
 * SecretStorage key of the named chore secret (`urlSecret`, `smtpSecret` in chores.yaml) in THIS
 * workspace: a secret set in one workspace is invisible to every other (core/chores/secretScope.ts).
 */
export function workspaceSecretKey(name: string): string {
  const workspace = vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  return choreSecretKey(workspaceSecretScope(workspace?.toString() ?? 'no-folder'), name);
}

/**
 * Chores in the VS Code host: loads `.tasklane/chores.yaml` (at start and on every change) with
 * line-precise diagnostics, feeds cron, file and task triggers to the core runner, and keeps the
 * sidebar's chore list and the open run's trace live. Chores never run in an untrusted workspace,
 * and only a chore the person consented to (for its current definition) is scheduled, watched or
 * run: one that came with the repository, or changed since, waits for Enable. This class wires;
 * the parts are consent (choreConsent.ts), the cards (choreViews.ts), the event triggers
 * (choreFireSources.ts) and the file and event sources (choreWatchers.ts).
 */
export class ChoreHost implements SidebarSection<ChoreView, ChoreWebviewMessage>, vscode.Disposable {
  /** The engine hooks of chore runs (resolve fires, guard budgets, observe usage). */
  readonly runner: ChoreRunner;
  readonly runLog: ChoreRunLog;
  private readonly scheduler: ChoreScheduler;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly trusted: () => boolean;
  /** `.tasklane/chores.yaml`: watched, read, its problems shown (choreWatchers.ts). */
  private readonly file: ChoresFileSource;
  private loaded: ChoresFileResult = { chores: [], disabled: [], diagnostics: [] };
  /** File globs, task ends, problems and git HEAD (choreFireSources.ts). */
  private readonly sources: ChoreFireSources;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly listeners = new Set<(message: ChoreHostMessage) => void>();
  private readonly trace = new RunTraceFollower(
    (runId) => this.runLog.get(runId),
    (message) => this.post(message),
  );
  private scheduleStarted = false;
  /** Consent per workspace and per chore definition. */
  readonly consent: ConsentStore;
  /** The Enable flow over it (choreConsent.ts). */
  private readonly choreConsent: ChoreConsent;
  /** What chores spent today and this month, and which a tripped cap paused. */
  readonly spend: ChoreSpendLedger;
  private readonly choreSettings: () => ChoreSettings;
  private readonly mcp: ChoreMcpPort | undefined;
  private readonly modelCost: () => ModelCostContext | undefined;
  /** Which chores were consented at the last `apply`, to see when an MCP change moved one. */
  private consentKey = '';
  /** The agent's skills once it started (none before: a chore naming a skill waits until then). */
  private knownSkills: () => ReadonlyArray<{ name: string; body: string }> = () => [];
  /** Continue on a task once the agent started: Resume continues a run parked at its budget. */
  private continueTask: (taskId: string) => Promise<void> = async () => undefined;
  /**
   * The workspace's AGENTS.md as a chore's prompt gets it, for the consent hash; read at each
   * check, so an edit withdraws the consent at the next one (a folder on this machine's disk).
   */
  private readonly workspaceRules: () => string | undefined;

  constructor(deps: ChoreHostDeps) {
    const { clock, logger } = deps;
    this.logger = logger;
    this.clock = clock;
    this.trusted = deps.trusted;
    this.file = new ChoresFileSource(deps.root, logger);
    const rulesFile = deps.root?.scheme === 'file' ? path.join(deps.root.fsPath, 'AGENTS.md') : undefined;
    this.workspaceRules = () => {
      try {
        return rulesFile ? fs.readFileSync(rulesFile, 'utf8') : undefined;
      } catch {
        return undefined;
      }
    };
    this.consent = deps.consent;
    this.mcp = deps.mcp;
    this.modelCost = deps.modelCost ?? (() => undefined);
    this.choreConsent = new ChoreConsent(
      this.consent,
      logger,
      (chore) => choreSkillBodies(chore, this.knownSkills(), this.workspaceRules()),
      (chore) => this.mcpFacts(chore).hashes,
    );
    this.sources = new ChoreFireSources({
      root: deps.root,
      clock,
      logger,
      trusted: deps.trusted,
      fire: (choreId, cause, context) => this.runner.fire(choreId, cause, context),
    });
    this.runLog = deps.engine.runLog;
    this.spend = deps.engine.spend;
    this.choreSettings = deps.choreSettings ?? (() => ({ enabled: true, maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 }));
    if (!deps.engine.scheduler) throw new Error('Chores in VS Code keep their schedules: build the engine with chores.schedule.');
    this.scheduler = deps.engine.scheduler;
    this.runner = deps.engine.runner;
    this.runLog.onDidChange((run) => this.onRun(run));
    // A pause (a cap tripped) or a Resume shows on the chore's card at once.
    this.spend.onDidChangePause(() => void this.apply().catch((e) => this.logger.error('CHORE', 'could not refresh the chores after a pause', e)));
  }

  /** Why a fire of this chore may not run, beyond trust, `enabled: false` and a pause (the runner checks those). */
  blockedReason(choreId: string): string | undefined {
    if (!this.choreSettings().enabled) return 'chores are switched off (setting tasklane.chores.enabled)';
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (!chore) return 'the chore is no longer defined in .tasklane/chores.yaml, or is invalid';
    return this.consentOf(chore) === 'needed' ? notEnabledReason : undefined;
  }

  /** Continues a run parked at its budget and lifts a tripped cap's pause; says what it did. */
  async resume(choreId: string): Promise<string> {
    const parked = await resumeParkedRun(this.runLog, choreId, this.continueTask);
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    const said = await resumeChore(this.spend, choreId, chore, this.choreSettings(), this.logger);
    return parked ? `${parked} ${said}` : said;
  }

  /**
   * Once the agent exists, before its loop claims anything, so restored fires find their chores:
   * loads chores.yaml, attaches the runner, watches the file and task ends, starts the schedule.
   */
  async start(agent: Agent): Promise<void> {
    // The skills a chore names are part of its consent: the agent's own list, what its tasks get.
    this.knownSkills = () => agent.skills();
    this.continueTask = (taskId) => agent.continueTask(taskId);
    // Watch first, then read: a chores.yaml written while the agent starts is not missed.
    this.disposables.push(...this.file.watch(() => void this.reload().catch((e) => this.logger.error('CHORE', 'could not reload chores.yaml', e))));
    await agent.whenReady();
    await this.reload();
    await this.runner.attach(agent);
    this.disposables.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.startSchedule()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tasklane.chores'))
          void this.apply().catch((error) => this.logger.error('CHORE', 'could not apply the chore settings', error));
        // Another model or a price given: the cost note on chores.yaml and the cards follows.
        else if (e.affectsConfiguration('tasklane.model'))
          void this.reload().catch((error) => this.logger.error('CHORE', 'could not re-read chores.yaml after a model setting changed', error));
      }),
    );
    this.sources.listen();
    await this.startSchedule();
  }

  /** Re-reads chores.yaml: diagnostics, runner, schedule, watchers, task matcher, sidebar. */
  async reload(): Promise<void> {
    const text = await this.file.read();
    const before = new Set([...this.loaded.chores.map((c) => c.id), ...this.loaded.disabled]);
    this.loaded = this.file.parse(text, this.costNote());
    await this.apply(before);
  }

  /** Whether the person consented to this chore's current definition on this machine. */
  consentOf(chore: ChoreDefinition): 'given' | 'needed' {
    return this.choreConsent.of(chore);
  }

  /**
   * Enables a chore: records consent for the definition the person saw. `hash` is the
   * `review.definitionHash` that was shown; when the definition changed since, nothing is enabled.
   */
  async enable(choreId: string, hash: string): Promise<void> {
    await this.choreConsent.enable(
      this.loaded.chores.find((c) => c.id === choreId),
      choreId,
      hash,
    );
    await this.apply();
  }

  /** Disables a chore (withdraws consent); a run in progress stops at its next step. */
  async disable(choreId: string): Promise<boolean> {
    const revoked = await this.choreConsent.disable(choreId);
    await this.apply();
    return revoked;
  }

  /** New Chore wrote this chore on this machine: the person's own, consented at creation. */
  async created(choreId: string): Promise<void> {
    await this.reload();
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (!chore) return;
    await this.choreConsent.created(chore);
    await this.apply();
  }

  /** Next fires and a dry run of a valid chore (Preview Chore); no model is called. `model`: for the cost note. */
  preview(choreId: string, count = 5, model?: ModelCostContext): { chore: ChoreDefinition; preview: ChorePreview } | undefined {
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
        ...(model ? { model } : {}),
      }),
    };
  }

  /** What a chore does, for the Enable confirmation: the review (its hash is what Enable binds to). */
  review(choreId: string): { chore: ChoreDefinition; consent: 'given' | 'needed'; review: ChoreReview } | undefined {
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    return chore
      ? {
          chore,
          consent: this.consentOf(chore),
          review: toChoreReview(chore, choreSkillBodies(chore, this.knownSkills(), this.workspaceRules()), this.mcpFacts(chore)),
        }
      : undefined;
  }

  /** Says the chores' cost will be estimated, and how to price the model, when it has no known price. */
  private costNote(): string | undefined {
    return costEstimateNote(this.modelCost());
  }

  private mcpFacts(chore: ChoreDefinition): ChoreMcpFacts {
    return chore.mcp && this.mcp ? this.mcp.facts(chore) : { hashes: {}, targets: {} };
  }

  /**
   * The MCP servers changed (mcp.json read or edited, a setting): a chore naming one of them may
   * have gained or lost its consent, since the server's definition is part of its hash.
   */
  mcpChanged(): void {
    if (!this.loaded.chores.some((c) => c.mcp)) return;
    const key = this.loaded.chores.map((c) => `${c.id}:${this.consentOf(c)}`).join(',');
    if (key === this.consentKey) return;
    void this.apply().catch((error) => this.logger.error('CHORE', 'could not refresh the chores after an MCP change', error));
  }

  /** Hands only consented chores to the runner, schedule, watchers and task matcher; patches the sidebar. */
  private async apply(before: Set<string> = new Set()): Promise<void> {
    const runnable = this.choreConsent.runnable(this.loaded.chores);
    this.consentKey = this.loaded.chores.map((c) => `${c.id}:${runnable.includes(c) ? 'given' : 'needed'}`).join(',');
    this.runner.setChores(runnable);
    this.mcp?.granted(runnable);
    this.scheduler.setChores(runnable);
    this.sources.configure(runnable);
    const views = await this.list();
    for (const view of views) this.post({ type: 'chorePatch', chore: view });
    for (const id of before) if (!views.some((v) => v.id === id)) this.post({ type: 'choreRemoved', id });
  }

  /** Run now (palette, sidebar): a durable fire like any other. */
  /**
   * Run now. A chore that runs on CI (a GitHub event trigger) replays a recorded event payload:
   * `eventFile`, or the file the person picks; undefined when they pick none.
   */
  async runNow(choreId: string, eventFile?: vscode.Uri): Promise<string | undefined> {
    if (!this.trusted()) throw new Error('Chores do not run in Restricted Mode: trust this folder (Manage Workspace Trust) first.');
    const chore = this.loaded.chores.find((c) => c.id === choreId);
    if (chore && this.consentOf(chore) === 'needed') throw new Error(notEnabledForRunNow(choreId));
    // The hour cap is said here too: the person who pressed Run Now learns why nothing starts.
    const stopped = chore && (this.stoppedProblem(chore) ?? firesPerHourReached({ clock: this.clock, runLog: this.runLog }, chore));
    if (stopped) throw new Error(`The chore "${choreId}" does not run now: ${stopped}`);
    if (chore?.trigger.kind !== 'github') return this.runner.fire(choreId, 'manual');
    const context = await replayedEvent(chore, eventFile);
    return context && this.runner.fire(choreId, 'manual', context);
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
    return this.file.uri();
  }

  /** The chore's own applied edits: the watcher events they cause must not fire it again. */
  noteOwnWrite(choreId: string, paths: readonly string[]): void {
    this.sources.noteOwnWrite(choreId, paths);
  }

  /** Follows approval cards: a chore's applied proposal changes files its own globs may watch. */
  followApprovals(message: ApprovalHostMessage): void {
    this.sources.followApprovals(message);
  }

  onDidPost(listener: (message: ChoreHostMessage) => void): vscode.Disposable {
    this.listeners.add(listener);
    return new vscode.Disposable(() => this.listeners.delete(listener));
  }

  /** A message from the chores section of the sidebar (choreMessages.ts). */
  handle(message: ChoreWebviewMessage): Promise<ChoreHostMessage | undefined> {
    return handleChoreMessage(this, this.trace, message);
  }

  async list(): Promise<ChoreView[]> {
    return choreCards(this.loaded, this.cardFacts());
  }

  /** What the chore cards are built from, read now. */
  private cardFacts(): ChoreCardFacts {
    return {
      trusted: this.trusted(),
      consentOf: (chore) => this.consentOf(chore),
      skillBodies: (chore) => choreSkillBodies(chore, this.knownSkills(), this.workspaceRules()),
      mcpServers: (chore) => this.mcpFacts(chore),
      costNote: () => this.costNote(),
      stoppedProblem: (chore) => this.stoppedProblem(chore),
      paused: (id) => this.spend.paused(id),
      nextFireAt: (id) => this.scheduler.nextFireAt(id),
      history: (id) => this.runLog.history(id),
    };
  }

  /** Why a consented chore does not run now: the master switch, `enabled: false`, a budget pause. */
  private stoppedProblem(chore: ChoreDefinition): string | undefined {
    return stoppedProblem(chore, this.choreSettings(), this.spend);
  }

  /** For `tasklane.getState`: every chore with its last runs (and a files chore's bursts). */
  async state(): Promise<ChoreStateView[]> {
    const views = await this.list();
    return views.map((view) => {
      const files = this.sources.fileBursts(view.id);
      return { ...view, runs: this.runLog.history(view.id).slice(0, 5).map(toRunView), ...(files ? { files } : {}) };
    });
  }

  /** The full record of a run (trace included), for tests and the sidebar. */
  run(runId: string): ChoreRunRecord | undefined {
    return this.runLog.get(runId);
  }

  dispose(): void {
    // The runner is the engine's: it is disposed when the engine shuts down.
    this.scheduler.stop();
    this.sources.dispose();
    for (const d of this.disposables) d.dispose();
    this.file.dispose();
  }

  private async startSchedule(): Promise<void> {
    if (this.scheduleStarted || !this.trusted()) return;
    this.scheduleStarted = true;
    await this.scheduler.start();
  }

  private onRun(run: ChoreRunRecord): void {
    const chore = this.loaded.chores.find((c) => c.id === run.choreId);
    this.post({ type: 'choreRunPatch', run: toRunView(run) });
    // The same card as in the whole list: a fire skipped in Restricted Mode keeps saying why.
    if (chore) this.post({ type: 'chorePatch', chore: choreCard(chore, this.cardFacts(), run) });
    this.trace.changed(run);
  }

  private post(message: ChoreHostMessage): void {
    for (const listener of this.listeners) listener(message);
  }
}
