/**
 * What the engine persists per session and per task (the `data` JSON of the sessions and tasks
 * tables), and the conversions to the view types the sidebar sees.
 */
import type { Usage } from '../model/types';
import type { MessageView, PauseReason, SessionStatus, SessionView, TaskMode, TaskStatus, TaskView, Todo, UsageTotals } from './types';
import { totalTokens } from '../model/usage';
import type { HistorySummary } from './historySummary';
import type { TaskChecksVerdict } from '../../shared/taskState';

export interface SessionRecord {
  id: string;
  name: string;
  status: SessionStatus;
  lastActivity: number;
  taskId?: string;
  /**
   * A task's lane only: the conversation whose message started it (for a task a task started,
   * that task's conversation). The lane stays the task's own; the session list shows it nested
   * under this conversation, and opening it shows that conversation's thread.
   */
  parentId?: string;
  usage: UsageTotals;
  /** The last turn failed before doing anything; `Agent.retry` re-queues this payload. */
  retryPayload?: Record<string, unknown>;
  /** How many person inputs (messages, replies) the session has received. */
  inputs?: number;
  /**
   * `inputs` as the last completed conversation turn saw it: a conversation trigger with nothing
   * newer is a burst already answered (coalesced), or a turn re-delivered after its effects were
   * committed, and runs no model call.
   */
  answered?: number;
  /** Content keys of the last replies posted (trigger + text): a re-delivered turn skips them. */
  replyKeys?: string[];
}

/** Per-budget "warned at 80%" flags: reset when Continue raises the limit (a new crossing). */
export interface BudgetWarnings {
  actions: boolean;
  tokens: boolean;
  cost: boolean;
}

/** Which chore run a task belongs to (see TaskRecord.chore). */
export interface ChoreLineage {
  choreId: string;
  runId: string;
}

/** The chore a task works for: its own (`chore:<id>` source) or, by descent, its root chore task's. */
export function choreIdOf(task: { source: string; chore?: ChoreLineage }): string | undefined {
  return task.chore?.choreId ?? (task.source.startsWith('chore:') ? task.source.slice('chore:'.length) : undefined);
}

export interface TaskRecord {
  id: string;
  sessionId: string;
  name: string;
  instruction: string;
  mode: TaskMode;
  status: TaskStatus;
  todos: Todo[];
  actionSets: string[];
  /** Created since action sets are the gate (actions/actionSets.ts upgradeActionSets). */
  gatedSets?: true;
  selectedSkills: string[];
  /** 'user', 'chore:<id>', 'memory', 'successor:<task id>'… */
  source: string;
  /** Extra fields from the trigger that created the task (chore id, run id). */
  origin?: Record<string, unknown>;
  /**
   * The chore run this task works for: its own run for a chore's task, and, inherited, for every
   * task that task starts (transitively). Such tasks keep the chore's policy (edits never apply
   * unattended, no action set beyond the chore's) and draw on the run's budget.
   */
  chore?: ChoreLineage;
  waitingForUser: boolean;
  waitingForApproval?: string;
  /** Complex tasks: task_end asked for approval; the next user reply grants it. */
  endApprovalRequested?: boolean;
  endApproved?: boolean;
  paused: boolean;
  pauseReason?: PauseReason;
  /**
   * The person pressed Stop on the working task (stepStop.ts): the step in flight finishes (its
   * model call and the actions it asked for), then the task pauses instead of taking the next.
   * Durable, so a restart mid-step still pauses it.
   */
  stopAfterStep?: boolean;
  actionCount: number;
  usage: UsageTotals;
  limits: { actions: number; tokens: number; cost?: number };
  warned: BudgetWarnings;
  /** Turns run so far: part of continuation dedup keys, so a retried turn cannot double-queue. */
  turns: number;
  /** Consecutive transient model errors (backoff). */
  modelErrors: number;
  /** The stable prompt prefix, fixed at task start (rules, memory, skills, instruction). */
  prefix: string;
  /** The last status line sent to the model (a turn whose status is unchanged sends none). */
  lastStatus?: string;
  /** History is rebuilt from events with seq >= this (moved forward in big steps when it grows). */
  historyFromSeq: number;
  /** What the history before `historyFromSeq` held (historySummary.ts); absent until the first cut. */
  historySummary?: HistorySummary;
  /** This task's history bound when its model said "context too long" (below the engine's default). */
  historyMaxChars?: number;
  /** Characters of the history the last request was built from (to size that bound). */
  historyChars?: number;
  /** A context-length error was retried with a cut and no turn has succeeded since. */
  contextRetried?: boolean;
  createdAt: number;
  endedAt?: number;
  finalSummary?: string;
  output?: Record<string, unknown>;
  /** What judged the task at its end (taskChecks.ts): its state word says it (src/shared/taskState.ts). */
  checks?: TaskChecksVerdict;
}

export const emptyTotals = (): UsageTotals => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0 });

export function addTotals(total: UsageTotals, usage: Usage, cost: number, costEstimated = false): UsageTotals {
  return {
    ...(total.costEstimated || costEstimated ? { costEstimated: true } : {}),
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + usage.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + usage.cacheWriteTokens,
    cost: total.cost + cost,
  };
}

/** Tokens counted against the task budget: everything sent and received (model/usage.ts). */
export const tokensUsed = (usage: UsageTotals): number => totalTokens(usage);

export function taskView(task: TaskRecord): TaskView {
  return {
    id: task.id,
    sessionId: task.sessionId,
    name: task.name,
    instruction: task.instruction,
    mode: task.mode,
    status: task.status,
    todos: task.todos,
    counters: {
      actions: { used: task.actionCount, limit: task.limits.actions },
      tokens: { used: tokensUsed(task.usage), limit: task.limits.tokens },
      ...(task.limits.cost !== undefined ? { cost: { used: task.usage.cost, limit: task.limits.cost } } : {}),
    },
    waitingForUser: task.waitingForUser,
    ...(task.waitingForApproval ? { waitingForApproval: task.waitingForApproval } : {}),
    paused: task.paused,
    ...(task.pauseReason ? { pauseReason: task.pauseReason } : {}),
    ...(task.stopAfterStep ? { stopping: true } : {}),
    source: task.source,
    ...(task.chore ? { chore: task.chore } : {}),
    selectedSkills: task.selectedSkills,
    actionSets: task.actionSets,
    usage: task.usage,
    createdAt: task.createdAt,
    ...(task.endedAt ? { endedAt: task.endedAt } : {}),
    ...(task.finalSummary ? { finalSummary: task.finalSummary } : {}),
    ...(task.output ? { output: task.output } : {}),
    ...(task.checks ? { checks: task.checks } : {}),
  };
}

export function sessionView(session: SessionRecord, messages: MessageView[]): SessionView {
  const { retryPayload: _retry, inputs: _inputs, answered: _answered, replyKeys: _keys, ...rest } = session;
  return { ...rest, messages };
}
