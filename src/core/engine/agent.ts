/**
 * The agent: one consumer loop over the durable trigger store (claim → react → ack/nack) and the
 * API the host and the sidebar call. It never loops over a task in memory: each turn ends by
 * queueing its own continuation as a trigger (docs/DESIGN.md §2).
 */
import * as path from 'node:path';
import { coreActions } from '../actions/coreActions';
import type { Ledger } from '../actions/ledger';
import { readActions } from '../actions/readActions';
import { ActionRegistry } from '../actions/registry';
import type { ActionDef } from '../actions/types';
import { guardRestricted } from '../approval/commandActions';
import { proposeMemoryNote, readMemory, readMemoryProposals, settleMemoryProposals } from '../memory/memory';
import { costOf } from '../model/pricing';
import type { ModelClient } from '../model/types';
import type { Clock, Logger, WorkspacePort } from '../ports';
import { discoverSkills } from '../skills/skills';
import type { Skill } from '../skills/skills';
import { Archive } from '../store/archive';
import type { DurableDb, Trigger, TriggerStore } from '../store/types';
import { raiseLimits } from './budgets';
import type { EngineEnv } from './engineEnv';
import { USER_PRIORITY } from './engineEnv';
import { DeadLetters } from './deadLetters';
import { EngineState, toMessage } from './engineState';
import { SESSION_PAGE, SessionPages } from './sessionPages';
import type { SessionCursor, SessionPage } from './sessionPages';
import { AppendFile, EventStreams } from './eventLog';
import { History } from './history';
import { exportSession } from './historyExport';
import type { ExportResult } from './historyExport';
import { routeCheap } from './messageRouter';
import type { MessageOptions } from './messageRouter';
import { react } from './react';
import type { Rung } from './react';
import { sessionView, taskView } from './records';
import type { TaskHooks } from './taskHooks';
import { restoreAtStart } from './restore';
import { TurnRegistry } from './stopping';
import { continueLater, endTask, injectReply, noteInput, scratchDirOf } from './taskLifecycle';
import type { TaskRecord } from './records';
import { redactCredentials, redactDeep } from '../security/redact';
import { RunawayGuard } from './caps';
import type { AgentChange, AgentSettings, AgentSnapshot, MessageView, SessionView, TaskEvent, TaskView } from './types';
import { InvalidTriggerPayload } from './triggerPayloads';

/** What the agent needs from its host (the VS Code adapters, or fakes in tests). */
export interface AgentDeps {
  db: DurableDb;
  triggers: TriggerStore;
  /** Resolved per turn; may throw ModelError (missing key…): shown in the session, the message is kept. */
  model: () => Promise<ModelClient>;
  workspace: WorkspacePort;
  clock: Clock;
  logger: Logger;
  /** Event logs, EVENT.md, MEMORY.md, TASK_HISTORY.md and scratch dirs live here. */
  storageDir: string;
  /** Built-in skills folder first, then the workspace's .agents/skills, .github/skills, .claude/skills. */
  skillDirs: string[];
  /** AGENTS.md content. */
  workspaceRules?: () => Promise<string | undefined>;
  settings: () => AgentSettings;
  /**
   * Applied to everything written to event streams and EVENT.md (security/redact.ts). Default:
   * credential shapes; the host passes its Redactor, which also knows the secret values it read.
   */
  redact?: (text: string) => string;
  /** False in Restricted Mode (an untrusted folder): `remember` is withdrawn. Default: trusted. */
  trusted?: () => boolean;
  /** More actions (edits, commands) registered next to the core set. */
  actions?: ActionDef[];
  /** Supervisor hooks (the chore runner): resolve chore fires, guard and observe their tasks. */
  hooks?: TaskHooks;
  /** The one irreversible-action ledger over `db`, shared with edits, commands and chores (src/core/createEngine.ts). */
  ledger: Ledger;
}

/** Transcript lines a snapshot carries per session. */
const SNAPSHOT_MESSAGES = 50;

export class Agent {
  private readonly env: EngineEnv;
  private readonly state: EngineState;
  private readonly abort = new AbortController();
  private loop?: Promise<void>;
  private skillList: Skill[] = [];
  private memoryQueue: Promise<unknown> = Promise.resolve();
  private readonly taskStopListeners = new Set<(taskId: string) => Promise<void>>();
  private readonly ready: Promise<void>;
  /** Archive mover, retention, history search and the storage report. */
  readonly history: History;
  /** Every retry and dismissal of a dead letter goes through here, so every view sees it. */
  readonly deadLetters: DeadLetters;
  private readonly archive?: Archive;
  private readonly pages: SessionPages;
  private readonly settleListeners = new Set<(turn: { trigger: Trigger; rung: Rung | 'failed' }) => void>();
  private holding = false;

  constructor(private readonly deps: AgentDeps) {
    const redact = deps.redact ?? redactCredentials;
    const streams = new EventStreams(path.join(deps.storageDir, 'events'), (data) => redactDeep(data, redact) as Record<string, unknown>);
    const eventMd = new AppendFile(path.join(deps.storageDir, 'EVENT.md'), '# Tasklane events\n\n');
    this.state = new EngineState(deps.db, streams, eventMd, deps.clock, deps.logger);
    // The archive lives next to the hot database (docs/STORAGE.md); an in-memory store has none.
    const storeDir = (deps.db as { dir?: string }).dir;
    if (storeDir) {
      this.archive = new Archive({
        db: deps.db,
        dir: path.join(storeDir, 'archive'),
        clock: deps.clock,
        logger: deps.logger,
        ages: () => this.history.archiveAges(),
        sessionText: (id) =>
          this.state
            .transcript(id)
            .map((m) => m.text)
            .join('\n')
            .slice(-2000),
        onMoved: (kind, ids) => {
          if (kind !== 'session') return;
          for (const id of ids) this.state.forgetSession(id);
          this.pages.invalidate();
        },
      });
    }
    this.deadLetters = new DeadLetters({ triggers: deps.triggers, state: this.state });
    this.pages = new SessionPages({ state: this.state, ...(this.archive ? { archive: this.archive } : {}) });
    this.history = new History({
      db: deps.db,
      state: this.state,
      triggers: deps.triggers,
      ...(this.archive ? { archive: this.archive } : {}),
      storageDir: deps.storageDir,
      ...(storeDir ? { storeDir } : {}),
      clock: deps.clock,
      logger: deps.logger,
      settings: deps.settings,
      signal: this.abort.signal,
    });
    // `remember` changes every later prompt: withdrawn in Restricted Mode like the other doing actions.
    const core = coreActions.map((action) => (action.name === 'remember' && deps.trusted ? guardRestricted([action], deps.trusted)[0] : action));
    const registry = new ActionRegistry([...core, ...readActions, ...(deps.actions ?? [])]);
    const memoryFile = path.join(deps.storageDir, 'MEMORY.md');
    this.env = {
      state: this.state,
      registry,
      ledger: deps.ledger,
      workspace: deps.workspace,
      clock: deps.clock,
      logger: deps.logger,
      triggers: deps.triggers,
      model: deps.model,
      settings: deps.settings,
      storageDir: deps.storageDir,
      memoryFile,
      taskHistory: new AppendFile(path.join(deps.storageDir, 'TASK_HISTORY.md'), '# Task history\n\n'),
      signal: this.abort.signal,
      ...(deps.hooks ? { hooks: deps.hooks } : {}),
      turns: new TurnRegistry(),
      startedAt: deps.clock.now(),
      stopTaskWork: (taskId) => this.stopTaskWork(taskId),
      pendingWake: new Set(),
      liveTurns: new Map(),
      redact,
      skills: () => this.skillList,
      skillNames: () => this.skillList.map((s) => s.name),
      scratchDir: (taskId) => scratchDirOf(deps.storageDir, taskId),
      costOf: (model, usage, reportedUsd) =>
        costOf(model, usage, { prices: deps.settings().modelPrices, ...(reportedUsd !== undefined ? { reportedUsd } : {}) }),
      remember: (note) => this.serialMemory(() => proposeMemoryNote(memoryFile, note)),
      caps: new RunawayGuard({ caps: () => deps.settings().caps, clock: deps.clock, logger: deps.logger, tasks: () => this.state.tasks.values() }),
      prefixContext: async () => ({ rules: (await deps.workspaceRules?.())?.trim() || undefined, memory: await readMemory(memoryFile) }),
    };
    this.ready = this.init();
    this.ready.catch((error) => deps.logger.error('REACT', 'The agent could not load its state; fix the cause and reload the window.', error));
  }

  /**
   * Registers actions that exist only after start (an MCP server's tools, listed once the person
   * trusts it). A name already registered is kept as it was: a tool list refresh adds, never swaps.
   */
  addActions(actions: readonly ActionDef[]): void {
    for (const action of actions) if (!this.env.registry.get(action.name)) this.env.registry.register(action);
  }

  private async init(): Promise<void> {
    // Before anything reads the hot rows: a crash mid-move leaves rows in both places.
    this.archive?.recover();
    await this.state.load();
    this.skillList = await discoverSkills(this.deps.skillDirs, this.deps.logger);
    this.deadLetters.load();
  }

  private serialMemory<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.memoryQueue.then(fn);
    this.memoryQueue = run.catch(() => undefined);
    return run;
  }

  /** The skills a task can be given, as they are injected (read once at start; a chore's consent hashes their bodies). */
  skills(): ReadonlyArray<{ name: string; body: string }> {
    return this.skillList;
  }

  /** Resolves when state is loaded (the snapshot is complete). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Notes `remember` proposed, waiting for the person's review. */
  memoryProposals(): Promise<string[]> {
    return readMemoryProposals(this.env.memoryFile);
  }

  /** The person's review of the proposed notes: the accepted ones enter MEMORY.md, all are cleared. */
  settleMemoryProposals(accepted: readonly string[]): Promise<void> {
    return this.serialMemory(() => settleMemoryProposals(this.env.memoryFile, accepted));
  }

  start(): void {
    if (this.loop) return;
    this.history.start();
    this.loop = this.run().catch((error) => {
      if (!this.abort.signal.aborted) this.deps.logger.error('TRIGGER', 'The trigger loop stopped; reload the window to restart it.', error);
    });
  }

  /** Shuts the agent down (window closing): in-flight turns are aborted and redone at the next start. */
  async shutdown(): Promise<void> {
    this.abort.abort();
    await this.history.stop();
    await this.loop;
    this.loop = undefined;
    await this.state.commit().catch(() => undefined);
    await this.state.streams.close();
  }

  /**
   * Reconciles the ledger and re-queues running tasks (start() does it once). Safe to call again:
   * resume triggers are dedup-keyed by task and turn.
   */
  async restore(): Promise<{ resumed: string[]; interrupted: string[] }> {
    await this.ready;
    return restoreAtStart(this.env);
  }

  private async run(): Promise<void> {
    this.env.startedAt = this.deps.clock.now();
    await this.restore();
    while (!this.abort.signal.aborted) {
      let lease;
      try {
        lease = await this.deps.triggers.next(this.abort.signal);
      } catch (error) {
        if (this.abort.signal.aborted) return;
        throw error;
      }
      const { trigger, token } = lease;
      this.holding = true;
      this.deps.logger.info('TRIGGER', `claimed ${trigger.source} ${trigger.id} (session ${trigger.sessionId}, attempt ${trigger.attempts})`);
      let rung: Rung | 'failed';
      try {
        rung = await react(this.env, trigger);
        await this.deps.triggers.ack(token);
      } catch (error) {
        rung = 'failed';
        const message = (error as Error).message ?? String(error);
        this.deps.logger.error('TRIGGER', `${trigger.source} ${trigger.id} failed: ${message}`, error);
        // An invalid payload fails the same way on every attempt: set it aside now, with the reason.
        const final = error instanceof InvalidTriggerPayload;
        await this.deps.triggers.nack(token, message, { final }).catch((e) => this.deps.logger.error('TRIGGER', 'nack failed', e));
        await this.deadLetters.noteFailure(trigger.id);
      }
      this.holding = false;
      for (const listener of [...this.settleListeners]) {
        try {
          listener({ trigger, rung });
        } catch (error) {
          this.deps.logger.error('TRIGGER', 'An onDidSettle listener threw; the loop carries on.', error);
        }
      }
    }
  }

  /** Told after each turn of the consumer loop, once its trigger is acked (or nacked: rung `failed`). */
  onDidSettle(listener: (turn: { trigger: Trigger; rung: Rung | 'failed' }) => void): { dispose(): void } {
    this.settleListeners.add(listener);
    return { dispose: () => this.settleListeners.delete(listener) };
  }

  /** True from the claim of a trigger until its turn settles (see onDidSettle); false while the loop waits for work. */
  get inTurn(): boolean {
    return this.holding;
  }

  async sendMessage(text: string, options: MessageOptions = {}): Promise<{ sessionId: string }> {
    await this.ready;
    const route = routeCheap(this.state, options);
    this.deps.logger.info('CHAT', `message → ${route.rung}`);
    if (route.rung === 'notification') {
      await this.state.mirror('-', 'notification', text);
      return { sessionId: '' };
    }
    const taskId = route.rung === 'reply' ? route.taskId : route.rung === 'session' ? route.taskId : undefined;
    const task = taskId ? this.state.tasks.get(taskId) : undefined;
    if (task) {
      await injectReply(this.env, task, text);
      return { sessionId: task.sessionId };
    }
    let session = route.rung === 'session' ? this.state.sessions.get(route.sessionId) : undefined;
    if (!session) session = this.state.createSession({ name: text.replace(/\s+/g, ' ').slice(0, 48) });
    noteInput(this.env, session.id);
    await this.state.appendMessage(session.id, 'user', text);
    session.status = 'working';
    this.state.saveSession(session);
    await this.state.commit();
    await this.deps.triggers.emit({
      source: 'user_message',
      sessionId: session.id,
      priority: USER_PRIORITY,
      payload: { text, route: route.rung === 'router' },
    });
    return { sessionId: session.id };
  }

  /** Re-queues the last failed conversation turn of a session (after an `error` line marked retryable). */
  async retry(sessionId: string): Promise<void> {
    const session = this.state.sessions.get(sessionId);
    if (!session?.retryPayload) throw new Error('Nothing to retry in this session: send the message again.');
    await this.deps.triggers.emit({ source: 'user_message', sessionId, priority: USER_PRIORITY, payload: { ...session.retryPayload, retry: true } });
  }

  /** Continue a paused task: raises a spent budget by the configured increment and resumes. */
  async continueTask(taskId: string): Promise<void> {
    const task = this.liveTask(taskId);
    if (!task.paused) return;
    if (task.pauseReason === 'budget') raiseLimits(task, this.deps.settings());
    task.paused = false;
    task.status = 'running';
    delete task.pauseReason;
    this.state.saveTask(task);
    await this.state.appendEvent(task.sessionId, 'resume', { text: 'The user pressed Continue.' });
    await this.state.appendMessage(task.sessionId, 'event', 'Continuing.');
    await this.state.commit();
    await continueLater(this.env, task, undefined, `continue${this.deps.clock.now()}`);
  }

  /** Abort a paused (or running) task: it ends as cancelled, through the same machinery as Stop. */
  async abortTask(taskId: string): Promise<void> {
    const task = this.liveTask(taskId);
    await this.stopTask(task, task.paused ? `Aborted by the user while paused (${task.pauseReason}).` : 'Aborted by the user.');
  }

  /** Cancel a task: its turn is aborted, its child process killed, and it ends as cancelled. */
  async cancelTask(taskId: string): Promise<void> {
    await this.stopTask(this.liveTask(taskId), 'Cancelled by the user.');
  }

  /**
   * Stop the turn running in a session: its model request is aborted, its action stopped (the
   * child process killed). A conversation keeps what streamed as a reply marked stopped and
   * shows idle at once; a task keeps it too and pauses (Continue resumes, Abort ends it; Cancel
   * is `cancelTask`). Resolves once the turn has returned and any child is gone. A session with
   * no turn running is left alone. A message queued after the stopped turn began is still
   * answered: Stop ends the work in flight, not what the person typed next.
   */
  async stop(sessionId: string): Promise<void> {
    await this.ready;
    const session = this.state.sessions.get(sessionId);
    const running = this.env.turns.get(sessionId);
    if (!running) return;
    running.abort();
    if (session && session.status === 'working' && !this.state.taskOf(sessionId)) {
      session.status = 'idle';
      this.state.saveSession(session);
    }
    await this.env.turns.stop(sessionId);
    await this.state.commit();
  }

  /**
   * Called when a task is stopped (Cancel, Abort, Stop): the listener stops what the task owns
   * outside its turn (an approved command running) and resolves once it is gone.
   */
  onTaskStopped(listener: (taskId: string) => Promise<void>): { dispose(): void } {
    this.taskStopListeners.add(listener);
    return { dispose: () => this.taskStopListeners.delete(listener) };
  }

  private async stopTaskWork(taskId: string): Promise<void> {
    await Promise.all(
      [...this.taskStopListeners].map((listener) =>
        listener(taskId).catch((error) => this.deps.logger.error('TASK', `stopping ${taskId}: a listener failed`, error)),
      ),
    );
  }

  private async stopTask(task: TaskRecord, summary: string): Promise<void> {
    // Abort first (synchronously), so nothing of the turn in flight runs after this point; then
    // end the task (its session shows idle at once, its pending triggers go); then wait for the
    // turn and any child process to be gone.
    this.env.turns.get(task.sessionId)?.abort(summary);
    await endTask(this.env, task, { status: 'cancelled', summary });
    await this.state.commit();
    await Promise.all([this.env.turns.stop(task.sessionId), this.stopTaskWork(task.id)]);
    // A trigger emitted by the turn before it saw the abort (there should be none) goes too.
    await this.deps.triggers.cancel(task.sessionId, (t) => t.source !== 'user_message');
    await this.state.commit();
  }

  /**
   * Tells a task something the person did outside its turns (e.g. reverted its edits): an event
   * in its stream, which its next turn reads, and a line in its transcript. It does not wake it.
   */
  async tellTask(taskId: string, text: string): Promise<void> {
    const task = this.state.tasks.get(taskId);
    if (!task) throw new Error(`Task ${taskId} is unknown.`);
    await this.state.appendEvent(task.sessionId, 'user_message', { text });
    await this.state.appendMessage(task.sessionId, 'event', text);
    await this.state.commit();
  }

  private liveTask(taskId: string) {
    const task = this.state.tasks.get(taskId);
    if (!task || (task.status !== 'running' && task.status !== 'paused')) {
      throw new Error(`Task ${taskId} is ${task ? task.status : 'unknown'}; only a running or paused task can be changed.`);
    }
    return task;
  }

  snapshot(): AgentSnapshot {
    return {
      sessions: [...this.state.sessions.values()]
        .sort((a, b) => b.lastActivity - a.lastActivity)
        .map((s) => {
          const live = this.env.liveTurns.get(s.id);
          return { ...sessionView(s, this.state.transcript(s.id).slice(-SNAPSHOT_MESSAGES)), ...(live ? { liveTurnId: live.id } : {}) };
        }),
      tasks: [...this.state.tasks.values()].sort((a, b) => b.createdAt - a.createdAt).map(taskView),
      deadLetters: this.deadLetters.list(),
    };
  }

  /**
   * One session's row (no transcript) with its live task, without building the whole snapshot:
   * the sidebar re-draws one row per change.
   */
  sessionRow(sessionId: string): { session: SessionView | undefined; tasks: TaskView[] } {
    const session = this.state.sessions.get(sessionId);
    const task = this.state.taskOf(sessionId);
    return { session: session && sessionView(session, []), tasks: task ? [taskView(task)] : [] };
  }

  /** A page of the session list (newest first, hot and archived), after `cursor` (see sessionPages.ts). */
  async sessionPage(cursor?: SessionCursor, limit = SESSION_PAGE): Promise<SessionPage> {
    await this.ready;
    return this.pages.page(cursor, limit);
  }

  /**
   * A session's transcript tail, hot or archived: read from its stream on first need (activation
   * reads none), then kept in memory for a hot session. The sidebar asks for it when it opens one.
   */
  async sessionMessages(sessionId: string): Promise<MessageView[]> {
    await this.ready;
    if (this.state.sessions.has(sessionId)) return (await this.state.loadTranscript(sessionId)).slice(-SNAPSHOT_MESSAGES);
    const events = await this.state.streams.tail(sessionId, 'message', SNAPSHOT_MESSAGES, SNAPSHOT_MESSAGES * 4);
    return events.map(toMessage);
  }

  readTaskEvents(taskId: string, options: { beforeSeq?: number; limit: number }): Promise<TaskEvent[]> {
    return this.state.streams.read(taskId, options);
  }

  /** Writes a session's full trace (hot or archived) as JSONL and Markdown into `outDir`. */
  async exportSession(sessionId: string, outDir: string): Promise<ExportResult> {
    await this.ready;
    return exportSession(
      { history: this.history, streams: this.state.streams, db: this.deps.db, redact: this.env.redact, ...(this.archive ? { archive: this.archive } : {}) },
      sessionId,
      outDir,
    );
  }

  onDidChange(listener: (change: AgentChange) => void): { dispose(): void } {
    return this.state.onChange(listener);
  }
}
