/**
 * The agent: one consumer loop over the durable trigger store (claim → react → ack/nack) and the
 * API the host and the sidebar call. It never loops over a task in memory: each turn ends by
 * queueing its own continuation as a trigger (docs/DESIGN.md §2).
 */
import type { ActionDef } from '../actions/types';
import { discoverSkills } from '../skills/skills';
import type { Trigger } from '../store/types';
import { buildAgentParts, type AgentDeps, type AgentParts } from './agentParts';
import { AgentViews } from './agentViews';
import { raiseLimits } from './budgets';
import { USER_PRIORITY, type TurnClaim } from './engineEnv';
import type { MessageOptions } from './messageRouter';
import { react, type Rung } from './react';
import type { TaskRecord } from './records';
import { restoreAtStart } from './restore';
import { sendMessage, type SendResult } from './sendPath';
import { stopAfterStep } from './stepStop';
import { continueLater, endTask } from './taskLifecycle';
import { InvalidTriggerPayload } from './triggerPayloads';

export type { AgentDeps } from './agentParts';

/** Builds an agent and everything it is made of from its ports (createEngine's one way to make one). */
export function createAgent(deps: AgentDeps): Agent {
  return new Agent(buildAgentParts(deps));
}

export class Agent {
  /** What every view reads (sessions, tasks, transcripts, task events, exports) and its change feed. */
  readonly views: AgentViews;
  /** Archive mover, retention, history search and the storage report. */
  readonly history: AgentParts['history'];
  /** Every retry and dismissal of a dead letter goes through here, so every view sees it. */
  readonly deadLetters: AgentParts['deadLetters'];
  private readonly env: AgentParts['env'];
  private readonly state: AgentParts['state'];
  private readonly deps: AgentDeps;
  private loop?: Promise<void>;
  private readonly ready: Promise<void>;
  private readonly settleListeners = new Set<(turn: { trigger: Trigger; rung: Rung | 'failed' }) => void>();
  private holding = false;

  constructor(private readonly parts: AgentParts) {
    ({ deps: this.deps, env: this.env, state: this.state, history: this.history, deadLetters: this.deadLetters } = parts);
    this.ready = this.init();
    this.ready.catch((error) => this.deps.logger.error('REACT', 'The agent could not load its state; fix the cause and reload the window.', error));
    this.views = new AgentViews(parts, this.ready);
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
    this.parts.archive?.recover();
    await this.state.load();
    this.parts.skills.push(...(await discoverSkills(this.deps.skillDirs, this.deps.logger)));
    this.deadLetters.load();
  }

  /** The skills a task can be given, as they are injected (read once at start; a chore's consent hashes their bodies). */
  skills(): ReadonlyArray<{ name: string; body: string }> {
    return this.parts.skills;
  }

  /** Resolves when state is loaded (the snapshot is complete). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** Notes `remember` proposed, waiting for the person's review. */
  memoryProposals(): Promise<string[]> {
    return this.parts.notes.proposals();
  }

  /** The person's review of the proposed notes: the accepted ones enter MEMORY.md, all are cleared. */
  settleMemoryProposals(accepted: readonly string[]): Promise<void> {
    return this.parts.notes.settle(accepted);
  }

  start(): void {
    if (this.loop) return;
    this.history.start();
    this.loop = this.run().catch((error) => {
      if (!this.parts.abort.signal.aborted) this.deps.logger.error('TRIGGER', 'The trigger loop stopped; reload the window to restart it.', error);
    });
  }

  /** Shuts the agent down (window closing): in-flight turns are aborted and redone at the next start. */
  async shutdown(): Promise<void> {
    this.parts.abort.abort();
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
    while (!this.parts.abort.signal.aborted) {
      let lease;
      try {
        lease = await this.deps.triggers.next(this.parts.abort.signal);
      } catch (error) {
        if (this.parts.abort.signal.aborted) return;
        throw error;
      }
      const { trigger, token } = lease;
      this.holding = true;
      this.deps.logger.info('TRIGGER', `claimed ${trigger.source} ${trigger.id} (session ${trigger.sessionId}, attempt ${trigger.attempts})`);
      let rung: Rung | 'failed';
      // A task turn acks this claim with its continuation's write; any other rung is acked here.
      const claim: TurnClaim = { token, acked: false };
      try {
        rung = await react(this.env, trigger, claim);
        if (!claim.acked) await this.deps.triggers.ack(token);
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

  /** Sends the person's message: one durable commit, answered exactly once (sendPath.ts says how). */
  async sendMessage(text: string, options: MessageOptions = {}): Promise<SendResult> {
    await this.ready;
    return sendMessage(this.env, text, options);
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
    if (task.stopAfterStep && !task.paused) {
      // Continue pressed before the step in flight ended: the Stop is taken back, the task goes on.
      delete task.stopAfterStep;
      this.state.saveTask(task);
      await this.state.commit();
      return;
    }
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

  /**
   * Stop a working task after its current step (the block's Stop, stepStop.ts): it pauses, is
   * kept, and Continue resumes it from there. Refused while it waits for the person.
   */
  async stopTaskAfterStep(taskId: string): Promise<void> {
    await this.ready;
    await stopAfterStep(this.env, this.liveTask(taskId));
  }

  /**
   * Cancel a task, running or paused: its turn is stopped, its child process killed, and it ends
   * as cancelled. Cancel is the one word for ending a task; Stop (`stop`) only ends the turn.
   */
  async cancelTask(taskId: string): Promise<void> {
    const task = this.liveTask(taskId);
    await this.stopTask(task, task.paused ? `Cancelled by the user while paused (${task.pauseReason}).` : 'Cancelled by the user.');
  }

  /**
   * Stop the turn running in a session: its model request is aborted, its action stopped (the
   * child process killed). A conversation keeps what streamed as a reply marked stopped and
   * shows idle at once; a task keeps it too and pauses (Continue resumes, Cancel ends it:
   * `cancelTask`). Resolves once the turn has returned and any child is gone. A session with
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
   * Called when a task is stopped (Cancel, Stop): the listener stops what the task owns
   * outside its turn (an approved command running) and resolves once it is gone.
   */
  onTaskStopped(listener: (taskId: string) => Promise<void>): { dispose(): void } {
    this.parts.taskStopListeners.add(listener);
    return { dispose: () => this.parts.taskStopListeners.delete(listener) };
  }

  private async stopTask(task: TaskRecord, summary: string): Promise<void> {
    // Abort first (synchronously), so nothing of the turn in flight runs after this point; then
    // end the task (its session shows idle at once, its pending triggers go); then wait for the
    // turn and any child process to be gone.
    this.env.turns.get(task.sessionId)?.abort(summary);
    await endTask(this.env, task, { status: 'cancelled', summary });
    await this.state.commit();
    await Promise.all([this.env.turns.stop(task.sessionId), this.env.stopTaskWork(task.id)]);
    // A trigger emitted by the turn before it saw the abort (there should be none) goes too.
    await this.deps.triggers.cancel(task.sessionId, (t) => t.source !== 'user_message');
    await this.state.commit();
  }

  /**
   * Tells a task something the person did outside its turns (e.g. reverted its edits): an event
   * in its stream, which its next turn reads, and a line in its transcript. It does not wake it.
   * `text` is written for the model; `shown` says the same for the person (the step row and the
   * transcript line show it; without it they show nothing of the text and a neutral line).
   */
  async tellTask(taskId: string, text: string, shown?: string): Promise<void> {
    const task = this.state.tasks.get(taskId);
    if (!task) throw new Error(`Task ${taskId} is unknown.`);
    await this.state.appendEvent(task.sessionId, 'user_message', { text, forModel: true, ...(shown ? { shown } : {}) });
    await this.state.appendMessage(task.sessionId, 'event', shown ?? 'You changed something the task works on; it was told.');
    await this.state.commit();
  }

  private liveTask(taskId: string) {
    const task = this.state.tasks.get(taskId);
    if (!task || (task.status !== 'running' && task.status !== 'paused')) {
      throw new Error(`Task ${taskId} is ${task ? task.status : 'unknown'}; only a running or paused task can be changed.`);
    }
    return task;
  }
}
