/**
 * Hooks through which a supervisor outside the engine (the chore runner) starts, watches and
 * bounds tasks without the engine knowing about chores. Every hook is optional; with none set the
 * engine behaves exactly as without them.
 */
import type { Usage } from '../model/types';
import type { Trigger } from '../store/types';
import type { ProactivePayload } from './triggerPayloads';
import type { TaskRecord } from './records';
import type { TaskEventKind } from './types';
import type { TaskChecksVerdict } from '../../shared/taskState';

/** Writes an event of the task for the person (never shown to the model), e.g. a check's row. */
export type TaskEventRecorder = (kind: TaskEventKind, data: Record<string, unknown>) => Promise<void>;

/** What a task is about to do; the guard is asked before each. */
export type GuardPoint = 'model' | 'action';

/** The hooks an Agent accepts (AgentDeps.hooks). */
export interface TaskHooks {
  /**
   * Turns a proactive trigger that carries no `prompt` (a chore fire) into the task to start, or
   * undefined when nothing should start (skipped, queued, already done). Called when the trigger
   * is claimed, so the decision sees the current definitions and the runs still active.
   */
  resolveProactive?(trigger: Trigger): Promise<ProactivePayload | undefined>;
  /**
   * Asked before every model call and every action of a task. A returned reason stops the task at
   * once: the engine ends it with status `error` and the reason as its summary. A `pauseAtBudget`
   * stop parks it instead (paused, reason `budget`, its state kept) for a person to resume.
   */
  guard?(task: TaskRecord, next: GuardPoint): GuardStop | undefined;
  /** After each model call of a task (repair calls included), with what it used; `costEstimated` for a model with no known price. */
  modelCalled?(task: TaskRecord, usage: Usage, costUsd: number, costEstimated?: boolean): void;
  /**
   * Before a task ends through task_end. A returned message keeps the task running: it is added
   * as a user message and one more turn is queued (e.g. the chore's success condition was not met,
   * or its checks failed). `signal` is the turn's: Stop and Cancel abort it, so work the hook does
   * (a check's process) ends with the turn; whatever it returns then, the task is not ended here.
   * `{ kind: 'end', result }` ends the task with that result instead of the model's (the
   * workspace's checks: done with what checked it, or failed saying which check failed).
   * `record` writes the task's events for the person (each check's row in the thread).
   */
  beforeTaskEnd?(
    task: TaskRecord,
    result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> },
    signal?: AbortSignal,
    record?: TaskEventRecorder,
  ): Promise<string | TaskEndOverride | undefined>;
  /**
   * A turn of a task ended without task_end, with only text or a question for the user. Nobody
   * answers an unattended task, so its supervisor says what happens instead of the default (the
   * task waits for the user): `nudge` queues one more turn told `message`; `end` ends the task as
   * if task_end had been called with `result` (beforeTaskEnd still judges it). Undefined keeps
   * the default.
   */
  turnWithoutEnd?(task: TaskRecord, turn: { text: string }): Promise<TurnWithoutEnd | undefined>;
}

/** What a supervisor does with a turn that ended without task_end (see {@link TaskHooks.turnWithoutEnd}). */
export type TurnWithoutEnd =
  { kind: 'nudge'; message: string } | { kind: 'end'; result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> } };

/**
 * A supervisor's end of a task in place of the one the model asked for (see {@link TaskHooks.beforeTaskEnd});
 * `checks` says what judged it (the workspace's checks: taskChecks.ts), kept on the task for its state word.
 */
export type TaskEndOverride = {
  kind: 'end';
  result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown>; checks?: TaskChecksVerdict };
};

/**
 * Why a guard stops a task: a reason ends it; `pauseAtBudget` (a spent run budget: a cap pauses,
 * never kills) parks it with the message as its pause notice.
 */
export type GuardStop = string | { pauseAtBudget: string };

/** Thrown inside a turn when the guard stops the task; react() ends (or, at a budget, pauses) the task with its message. */
export class TaskStopped extends Error {
  constructor(
    message: string,
    readonly pauseAtBudget = false,
  ) {
    super(message);
    this.name = 'TaskStopped';
  }
}
