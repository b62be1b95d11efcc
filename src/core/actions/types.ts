/**
 * What an action is (docs/DESIGN.md §4): one object carrying its model-facing description, its zod
 * input schema, its metadata and its `run`. Effects on the task (start, end, wait, ask) are not
 * performed by actions directly: they are recorded on `ctx.turn` and applied once, in order, by
 * the finalize phase, so a turn with several actions cannot half-apply its control flow.
 */
import type * as z from 'zod/v4';
import type { Logger, WorkspacePort } from '../ports';
import type { TaskMode, Todo } from '../engine/types';

/** When an action needs the user's go-ahead. 'policy' lets the action decide per input. */
export type ApprovalPolicy = 'never' | 'always' | 'policy';

/** A task an action asks the engine to start (conversation task_start, a successor task). */
export interface NewTaskSpec {
  name: string;
  instruction: string;
  mode: TaskMode;
  skills?: string[];
  actionSets?: string[];
}

/** The control-flow effects of one turn, collected while its actions run. */
export interface TurnEffects {
  /** Post a message to the user in this session. */
  say(text: string): void;
  /** Queue a task start; returns the id the task will have. */
  startTask(spec: NewTaskSpec): string;
  /** End the current task. */
  endTask(result: { status: 'completed' | 'error'; summary: string; output?: Record<string, unknown> }): void;
  /** Ask the user and sleep until the reply. `endApproval`: the question asks to close a complex task. */
  askUser(question: string, options?: { endApproval?: boolean }): void;
  /** Sleep until `at` (epoch ms), then continue. */
  waitUntil(at: number, reason: string): void;
  /** The message needs no answer. */
  ignore(): void;
  setTodos(todos: Todo[]): void;
  /** The action produced a proposal the user must approve; the task waits like for a reply. */
  needsApproval(approvalId: string, summary: string): void;
}

/** What an action's `run` gets besides its input. */
export interface ActionContext {
  sessionId: string;
  /** Absent in conversation mode. */
  taskId?: string;
  taskMode?: TaskMode;
  /** Whether the user already approved ending this complex task. */
  endApproved?: boolean;
  workspace: WorkspacePort;
  /** Per-task scratch dir (removed at task end); absent in conversation mode. */
  scratchDir?: string;
  turn: TurnEffects;
  now(): number;
  logger: Logger;
  /** Appends a note to MEMORY.md. */
  remember(note: string): Promise<void>;
  /** Skill names the model may pick at task start. */
  skillNames: string[];
  /** Asks the runaway caps whether one more task may start now: undefined if so, else why not. */
  admitTask?: () => string | undefined;
  /**
   * Fires when the person stops the turn (Stop, Cancel) or the agent shuts down. A
   * long-running action passes it on (the command runner kills its child) and gives up early.
   */
  signal?: AbortSignal;
  /**
   * Says how far a long action is (an MCP tool's `3/10 (30%): copying`): shown in its step row
   * while it runs, live only (the result keeps the last note). Absent outside a task.
   */
  progress?: (note: string) => void;
}

/** One action: the single source of truth for its schema, metadata and behaviour. */
export interface ActionDef<I = unknown> {
  /** snake_case, verb first. */
  name: string;
  /** Written for the model: what it does, when to use it. */
  description: string;
  /** Validation schema; coerces where models are sloppy (numbers as strings). */
  input: z.ZodType<I>;
  /**
   * The JSON Schema the model is offered, when it is not `input`'s export: an MCP tool's, as its
   * server wrote it (`$defs`, `$ref`, 2020-12 keywords), which a round trip through zod would
   * inline, loosen or drop. `input` still validates the call.
   */
  inputJsonSchema?: Record<string, unknown>;
  /** Which sets the action belongs to; a task sees the union of its sets. */
  actionSets: string[];
  /** Safe to run concurrently with the other actions of the turn. */
  parallelizable: boolean;
  /** Changes the world outside the agent: ledger intent before, outcome after. */
  irreversible: boolean;
  approval: ApprovalPolicy;
  /**
   * Whether the action is offered to the model right now (default: always). Restricted Mode
   * withdraws edits and execution; `run` must still refuse on its own, since a model can name a
   * tool it was not offered.
   */
  available?: () => boolean;
  /** Returns what the model sees as the tool result. Throw with a message saying what to do next. */
  run(input: I, ctx: ActionContext): Promise<unknown>;
}

/** Typed helper so `run` gets the schema's output type. */
export function defineAction<S extends z.ZodType>(def: Omit<ActionDef<z.output<S>>, 'input'> & { input: S }): ActionDef<unknown> {
  return def as unknown as ActionDef<unknown>;
}
