/** Collects what a turn's actions asked for, so finalize can apply it once and in order. */
import { createHash } from 'node:crypto';
import type { NewTaskSpec, TurnEffects } from '../actions/types';
import type { Todo } from './types';
import { newId } from './engineState';

export interface StartedTask extends NewTaskSpec {
  id: string;
}

export class TurnEffectsRecorder implements TurnEffects {
  readonly said: string[] = [];
  readonly started: StartedTask[] = [];
  ended?: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> };
  question?: string;
  /** The question asks the user to approve closing a complex task. */
  endApproval = false;
  waitAt?: { at: number; reason: string };
  ignored = false;
  todos?: Todo[];
  approval?: { id: string; summary: string };

  /**
   * `keyBase` (the trigger id) makes started task ids a function of the turn and the task's
   * content, so a turn re-delivered after a crash derives the same id and cannot start it twice.
   */
  constructor(
    private readonly now: () => number,
    private readonly keyBase?: string,
  ) {}

  say(text: string): void {
    this.said.push(text);
  }
  startTask(spec: NewTaskSpec): string {
    const id = this.keyBase ? `t-${contentKey(this.keyBase, spec.name, spec.instruction, spec.mode)}` : newId('t-', this.now());
    if (this.started.some((t) => t.id === id)) return id;
    this.started.push({ ...spec, id });
    return id;
  }
  endTask(result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> }): void {
    this.ended = result;
  }
  askUser(question: string, options: { endApproval?: boolean } = {}): void {
    this.question = question;
    this.endApproval = Boolean(options.endApproval);
  }
  waitUntil(at: number, reason: string): void {
    this.waitAt = { at, reason };
  }
  ignore(): void {
    this.ignored = true;
  }
  setTodos(todos: Todo[]): void {
    this.todos = todos;
  }
  needsApproval(approvalId: string, summary: string): void {
    this.approval = { id: approvalId, summary };
  }
}

/** A short stable hash of the parts: the content idempotency key of a reply or a task start. */
export function contentKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 20);
}
