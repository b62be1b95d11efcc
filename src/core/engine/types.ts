/**
 * The engine's public view types. The sidebar protocol (src/shared) mirrors them, so every type
 * here is JSON-serialisable: plain objects, strings, numbers, booleans, arrays.
 */
import type { ModelPrices } from '../model/pricing';
import type { TaskChecksVerdict } from '../../shared/taskState';

/** Who wrote a transcript line. `event` is a neutral notice (task started, budget warning…). */
export type MessageRole = 'user' | 'assistant' | 'error' | 'event';

/** One line of a session's transcript. */
export interface MessageView {
  role: MessageRole;
  text: string;
  /** Epoch ms. */
  at: number;
  /** Set on `error` lines the user can retry (the failed turn is re-queued by `Agent.retry`). */
  retryable?: boolean;
  /** An assistant reply the person stopped while it streamed: the text is what it said until then. */
  stopped?: boolean;
  /**
   * On a line a turn wrote: how many of the person's messages arrived while that turn ran (they
   * stand before it in the transcript). The model's history puts this line before them, so the
   * turn's answer precedes the input it never saw (the turn rule, docs/ARCHITECTURE.md).
   */
  arrivedDuring?: number;
  /** On the line that says a task was started, in the session that started it: that task's id. */
  taskId?: string;
  /**
   * On a line the person sent: the sender's request id (the sidebar's). A re-send with the same id
   * is recognised by it, and the sidebar clears its draft when it sees it (engine/sendPath.ts).
   */
  requestId?: string;
  /**
   * A line the core wrote for the person, as a code and its values: the page words it in the
   * person's language (src/webview/sidebarApp.ts), while `text` stays the English the transcript,
   * the model and the log read. A line stored without it shows its text.
   */
  said?: MessageSaid;
}

/** The codes of `MessageView.said`: the model's tool calls invalid twice (`detail`: their own account, as data). */
export type MessageSaid = { code: 'invalid_tool_calls'; detail: string };

export type SessionStatus = 'idle' | 'working' | 'waiting' | 'error';

/** One lane of work: a conversation, or the lane of one task (same id as the task). */
export interface SessionView {
  id: string;
  name: string;
  status: SessionStatus;
  /** Epoch ms of the last message or turn. */
  lastActivity: number;
  /** The task living in this session, when there is one (task id = session id). */
  taskId?: string;
  /** A task's lane started from a conversation: that conversation (the list nests the lane under it). */
  parentId?: string;
  /** Usage of every turn run for this session. */
  usage: UsageTotals;
  /** The last N transcript lines, oldest first. */
  messages: MessageView[];
  /** Set while a turn runs in this session (snapshot only; later changes come as `turn` changes). */
  liveTurnId?: string;
}

export type TaskMode = 'simple' | 'complex';
export type TaskStatus = 'running' | 'completed' | 'error' | 'paused' | 'cancelled';

/** One item of a task's visible todo list. */
export interface Todo {
  text: string;
  status: 'pending' | 'in_progress' | 'done';
}

/** Token and cost totals. Cost is in USD from the price table (0 when the model is unpriced). */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cost: number;
  /**
   * True when part of `cost` is an estimate: a call to a model with no known price, charged at the
   * conservative rate (model/pricing.ts). Views show such a cost as "≈$… estimated".
   */
  costEstimated?: boolean;
}

/** A counter next to its limit, so the sidebar can draw a gauge. */
export interface Counter {
  used: number;
  limit: number;
}

/** Why a task is not progressing on its own. */
export type PauseReason = 'budget' | 'model_error' | 'stopped';

export interface TaskView {
  id: string;
  sessionId: string;
  name: string;
  instruction: string;
  mode: TaskMode;
  status: TaskStatus;
  todos: Todo[];
  counters: { actions: Counter; tokens: Counter; cost?: Counter };
  /** The task asked the user something and sleeps until a reply (no tokens spent). */
  waitingForUser: boolean;
  /** The task waits for the user's decision on a proposed action (edits, commands). */
  waitingForApproval?: string;
  /** Paused by a budget or a model error; the sidebar shows Continue / Cancel. */
  paused: boolean;
  pauseReason?: PauseReason;
  /** Stop was pressed: the task pauses once its current step is done (stepStop.ts). */
  stopping?: boolean;
  /** Where the task came from: 'user', 'chore:<id>', 'memory'… */
  source: string;
  /** The chore run it works for, itself or by descent (a task a chore task started). */
  chore?: { choreId: string; runId: string };
  selectedSkills: string[];
  actionSets: string[];
  usage: UsageTotals;
  createdAt: number;
  endedAt?: number;
  finalSummary?: string;
  /** The JSON object handed to task_end (a chore's result). */
  output?: Record<string, unknown>;
  /** What judged the task at its end: verified, not checked, checks failed (src/shared/taskState.ts). */
  checks?: TaskChecksVerdict;
}

/** A trigger that failed all its retries; shown in its session and listed in the snapshot. */
export interface DeadLetterView {
  id: string;
  sessionId: string;
  source: string;
  lastError: string | null;
  attempts: number;
}

/** Everything the sidebar needs to draw itself once; later changes come as `AgentChange`s. */
export interface AgentSnapshot {
  sessions: SessionView[];
  tasks: TaskView[];
  deadLetters: DeadLetterView[];
}

/** Kinds of entries in a task's event stream. */
export type TaskEventKind =
  | 'task_start'
  | 'user_message'
  | 'turn'
  | 'action_start'
  | 'action_end'
  | 'todos'
  | 'warning'
  | 'error'
  | 'wait'
  | 'pause'
  | 'resume'
  | 'restart'
  /** A check the project declared ran at task_end (issue 43): one at its start, one at its end. */
  | 'check'
  | 'ledger'
  | 'late'
  | 'task_end'
  | 'message';

/** One entry of a session's append-only event stream (on disk, paged backwards by `seq`). */
export interface TaskEvent {
  /** 1-based, dense, per stream. */
  seq: number;
  at: number;
  kind: TaskEventKind;
  /** Kind-specific payload (action name, input, output, duration, text…). */
  data: Record<string, unknown>;
}

/**
 * A piece of a turn's live (not yet committed) reply: `text` is appended to the session's
 * streaming bubble; `tool` is the progress line of a tool call (its first arguments, replaced).
 */
export type StreamDelta = { kind: 'text'; text: string } | { kind: 'tool'; callId: string; name: string; preview: string };

/** One incremental change; the sidebar applies it without re-reading the whole state. */
export type AgentChange =
  | { type: 'message'; sessionId: string; message: MessageView }
  | { type: 'session'; session: Omit<SessionView, 'messages'> }
  | { type: 'sessionRemoved'; sessionId: string; movedTo?: string; archived?: boolean }
  | { type: 'task'; task: TaskView }
  | { type: 'taskEvent'; taskId: string; event: TaskEvent }
  | { type: 'deadLetters'; deadLetters: DeadLetterView[] }
  /** A turn started or ended in a session (the sidebar shows Stop while one runs). */
  | { type: 'turn'; sessionId: string; turnId: string; running: boolean }
  /** Live output of a running turn; never persisted (the final message is). */
  | { type: 'stream'; sessionId: string; turnId: string; delta: StreamDelta }
  /** How far a running action is (an MCP tool's progress), for its step row; never persisted. */
  | { type: 'actionProgress'; taskId: string; callId: string; note: string };

/** Budget settings, read at every turn so a settings change applies at once. */
export interface AgentSettings {
  maxActionsPerTask: number;
  maxTokensPerTask: number;
  maxCostPerTask?: number;
  /** What Continue adds to a paused task's limits; default: the initial limits again. */
  budgetIncrement?: { actions?: number; tokens?: number; cost?: number };
  /** Caps on runaway work (caps.ts); unset ones take DEFAULT_CAPS. */
  caps?: Partial<RunawayCaps>;
  /** Archive and retention schedules (docs/STORAGE.md); unset fields take the documented defaults. */
  storage?: StorageSettings;
  /** Memory distillation (MEMORY.md); unset fields take the documented defaults. */
  memory?: MemorySettings;
  /** The person's model prices (`tasklane.model.prices`; headless `TASKLANE_MODEL_PRICES`), over the built-in table. */
  modelPrices?: ModelPrices;
}

/** `tasklane.storage.*`: how long things stay hot or kept. Days; documented in docs/STORAGE.md. */
export interface StorageSettings {
  /** Settled trigger-history lines are deleted after this many days. Default 7. */
  settledTriggerDays?: number;
  /** Ledger rows with an outcome move from the hot database to the archive after this. Default 30. */
  ledgerDays?: number;
  /** Idle sessions (no live task, nothing queued) move to the archive after this. Default 7. */
  sessionDays?: number;
  /** Settled approvals move to the archive after this (their Undo window). Default 7. */
  approvalDays?: number;
}

/** `tasklane.memory.*`. */
export interface MemorySettings {
  /** Distil events into MEMORY.md at all. Default true. */
  enabled?: boolean;
  /** At most one distillation per this many minutes. Default 60. */
  intervalMinutes?: number;
  /** Only distil once at least this many new events exist. Default 20. */
  minEvents?: number;
  /** MEMORY.md's size limit in characters (whole entries are kept or dropped). Default 6000. */
  maxChars?: number;
}

/** One hit of a history search (hot state and archive). */
export interface HistoryHit {
  kind: 'session' | 'task';
  id: string;
  /** The session to open (a task's own session). */
  sessionId: string;
  title: string;
  detail: string;
  /** Ended or last active, epoch ms. */
  at: number;
  /** Found in the archive (not in the hot database). */
  archived: boolean;
}

/** Caps on runaway work (applied by RunawayGuard in caps.ts; declared here so settings and the engine share it). */
export interface RunawayCaps {
  maxActionsPerTurn: number;
  maxTaskStartsPerTurn: number;
  maxTaskStartsPerHour: number;
  maxRunningTasks: number;
}

/**
 * Why a call of the model was not run, as data beside the English `error` of its `action_end`
 * (and, for the caps, the turn's warning): the thread words it (src/host/stepText.ts). The caps
 * (caps.ts): the task's budget had `left` actions, or a turn runs at most `cap`; the person
 * stopped the task; other calls of the same turn were invalid.
 */
export type NotRun = { code: 'budget_left'; left: number } | { code: 'turn_cap'; cap: number } | { code: 'stopped' } | { code: 'invalid_siblings' };
