import * as vscode from 'vscode';
import type * as z from 'zod/v4';
import { appendChore } from '../../core/chores/choreSerialize';
import type { ChoreSpec } from '../../core/chores/choreSchema';
import { proactiveTaskId } from '../../core/engine/triggerPayloads';
import type { TaskView } from '../../core/engine/types';
import type { StoreServices } from '../storeServices';
import { TasklaneToolError } from './toolInputs';
import type { scheduleInput, startTaskInput } from './toolInputs';

/**
 * What VS Code's own agents (language model tools) and the `@tasklane` chat participant may do
 * with Tasklane: queue durable work, propose a chore, read the state, wait for a task. One
 * implementation for both, so the tools and the participant cannot drift apart.
 */

/** Why an await returned. */
export type AwaitOutcome = 'ended' | 'needs_person' | 'unknown_task';

/** A task as the tools report it: short, no transcript. */
export interface TaskBrief {
  id: string;
  name: string;
  status: TaskView['status'];
  /** What it waits for, if anything: the person's reply, an approval, or Continue. */
  waitingFor?: 'reply' | 'approval' | 'continue';
  summary?: string;
  budget: TaskView['counters'];
}

export function briefOf(task: TaskView): TaskBrief {
  const waitingFor = task.waitingForApproval ? 'approval' : task.waitingForUser ? 'reply' : task.paused ? 'continue' : undefined;
  return {
    id: task.id,
    name: task.name,
    status: task.status,
    ...(waitingFor ? { waitingFor } : {}),
    ...(task.finalSummary ? { summary: task.finalSummary } : {}),
    budget: task.counters,
  };
}

const ended = (task: TaskView) => task.status === 'completed' || task.status === 'error' || task.status === 'cancelled';
const needsPerson = (task: TaskView) => task.paused || task.waitingForUser || task.waitingForApproval !== undefined;

/** The operations, over the store-time services (awaited: the store may still be opening). */
export class TasklaneOps {
  constructor(
    private readonly ready: Promise<StoreServices>,
    private readonly trusted: () => boolean,
  ) {}

  /**
   * Queues a durable task through the engine's normal entry point for outside work (a proactive
   * trigger, like a chore fire): it is in the store when this returns, survives a restart, and is
   * started once even if the trigger is re-delivered (the task id derives from the trigger id).
   */
  async startTask(input: z.output<typeof startTaskInput>, via: 'lm_tool' | 'chat'): Promise<{ taskId: string }> {
    this.requireTrust('queue a task');
    const { triggers } = await this.ready;
    const b = input.budget ?? {};
    const limits = {
      ...(b.maxActions ? { actions: b.maxActions } : {}),
      ...(b.maxTokens ? { tokens: b.maxTokens } : {}),
      ...(b.maxCostUsd ? { cost: b.maxCostUsd } : {}),
    };
    const trigger = await triggers.emit({
      source: 'proactive',
      sessionId: 'system',
      payload: {
        prompt: input.instruction,
        name: input.name ?? input.instruction.slice(0, 60),
        mode: input.mode,
        via,
        ...(Object.keys(limits).length ? { limits } : {}),
      },
    });
    return { taskId: proactiveTaskId(trigger) };
  }

  /**
   * Proposes a chore: the new chores.yaml is a pending change set (a card with its diff, Approve
   * or Reject), never written directly. Once approved, the chore is one the person has not
   * consented to, so it waits for Enable like any chore that arrived from outside.
   */
  async schedule(input: z.output<typeof scheduleInput>): Promise<{ choreId: string; approvalId: string }> {
    this.requireTrust('propose a chore');
    const { chores, changeSets } = await this.ready;
    const uri = chores.fileUri();
    if (!uri) throw new TasklaneToolError("tasklane_schedule: no folder is open; chores live in the folder's .tasklane/chores.yaml. Open a folder first.");
    let text = '';
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      // No chores.yaml yet: the proposal creates it.
    }
    const taken = new Set(chores.validChores().map((c) => c.id));
    const base =
      input.id ??
      (input.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 40) ||
        'chore');
    if (input.id && taken.has(input.id)) throw new TasklaneToolError(`tasklane_schedule: a chore "${input.id}" already exists; pick another id.`);
    let id = base;
    for (let n = 2; taken.has(id) || new RegExp(`^\\s*-?\\s*id:\\s*["']?${id}["']?\\s*$`, 'm').test(text); n++) id = `${base}-${n}`;
    const spec: ChoreSpec = {
      id,
      name: input.name,
      trigger: { cron: input.cron, ...(input.timezone ? { timezone: input.timezone } : {}) },
      prompt: input.prompt,
      ...(input.budget ? { budget: input.budget } : {}),
    };
    let after: string;
    try {
      after = appendChore(text, spec);
    } catch (error) {
      throw new TasklaneToolError(`tasklane_schedule: ${(error as Error).message}`);
    }
    const approvalId = await changeSets.proposeUserEdit({ sessionId: 'user', path: vscode.workspace.asRelativePath(uri, false), after });
    return { choreId: id, approvalId };
  }

  /** Tasks (live first, then the last ended ones), what they wait for, chores and pending approvals. */
  async status(taskId?: string): Promise<Record<string, unknown>> {
    const { agent, chores, approvals } = await this.ready;
    const tasks = agent.views.snapshot().tasks;
    if (taskId) {
      const task = tasks.find((t) => t.id === taskId);
      if (!task) throw new TasklaneToolError(`tasklane_status: no task "${taskId}"; call tasklane_status without taskId to list them.`);
      return { task: briefOf(task) };
    }
    const live = tasks.filter((t) => !ended(t));
    const recent = tasks
      .filter(ended)
      .sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0))
      .slice(0, 5);
    const choreViews = await chores.state().catch(() => []);
    return {
      restricted: !this.trusted(),
      tasks: live.map(briefOf),
      recentlyEnded: recent.map(briefOf),
      waiting: live.filter(needsPerson).map((t) => ({ id: t.id, waitingFor: briefOf(t).waitingFor })),
      pendingApprovals: (await approvals.list()).filter((a) => a.status === 'pending').length,
      chores: choreViews.map((c) => ({
        id: c.id,
        name: c.name,
        trigger: c.trigger,
        enabled: c.enabled,
        ...(c.consent === 'needed' ? { waitsForEnable: true } : {}),
        ...(c.paused ? { paused: c.paused } : {}),
        ...(c.nextFireAt ? { nextFireAt: new Date(c.nextFireAt).toISOString() } : {}),
        ...(c.lastRun ? { lastRun: c.lastRun.status } : {}),
      })),
    };
  }

  /**
   * Parks until the task ends, or needs the person (a question, an approval, a paused budget: the
   * caller should tell its user rather than hold its turn forever). No polling: it listens to the
   * agent's changes. Cancelling `token` ends the wait (the task itself goes on). `onTask` hears
   * every change of the task meanwhile (the chat participant's progress lines).
   */
  async awaitTask(taskId: string, token: vscode.CancellationToken, onTask?: (task: TaskBrief) => void): Promise<{ outcome: AwaitOutcome; task?: TaskBrief }> {
    const { agent, triggers } = await this.ready;
    const find = () => agent.views.snapshot().tasks.find((t) => t.id === taskId);
    const settled = (task: TaskView | undefined): { outcome: AwaitOutcome; task?: TaskBrief } | undefined => {
      if (!task) return undefined;
      if (ended(task)) return { outcome: 'ended', task: briefOf(task) };
      if (needsPerson(task)) return { outcome: 'needs_person', task: briefOf(task) };
      return undefined;
    };
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    return new Promise((resolve, reject) => {
      // Listening first, then looking: a change between the two cannot be missed.
      const finish = (result: { outcome: AwaitOutcome; task?: TaskBrief } | Error) => {
        listener.dispose();
        cancel.dispose();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const listener = agent.views.onDidChange((change) => {
        if (change.type !== 'task' || change.task.id !== taskId) return;
        onTask?.(briefOf(change.task));
        const result = settled(change.task);
        if (result) finish(result);
      });
      const cancel = token.onCancellationRequested(() => finish(new vscode.CancellationError()));
      const now = settled(find());
      if (now) return finish(now);
      // A task just queued is not in the snapshot until its trigger is claimed: it is known while the trigger is pending.
      if (!find() && !triggers.pending('system').some((t) => proactiveTaskId(t) === taskId)) finish({ outcome: 'unknown_task' });
    });
  }

  private requireTrust(what: string): void {
    if (!this.trusted())
      throw new TasklaneToolError(`Tasklane cannot ${what} in Restricted Mode: the person must trust this folder first (Manage Workspace Trust).`);
  }
}
