/** The services every part of the engine shares, built once by the Agent. */
import type { GrantableSet } from '../actions/actionSets';
import type { ModelClient } from '../model/types';
import type { Skill } from '../skills/skills';
import type { TriggerStore } from '../store/types';
import type { AppendFile } from './eventLog';
import type { TurnStream } from './streaming';
import type { PipelineEnv } from './pipeline';
import type { TurnRegistry } from './stopping';
import type { AgentSettings } from './types';

export interface EngineEnv extends PipelineEnv {
  triggers: TriggerStore;
  model: () => Promise<ModelClient>;
  settings: () => AgentSettings;
  skills(): Skill[];
  /** Sets a task can be granted besides files and commands (a trusted MCP server each), listed in prompts. */
  grantableSets(): readonly GrantableSet[];
  /** AGENTS.md and MEMORY.md, read fresh (they go into prefixes fixed at task start). */
  prefixContext(): Promise<{ rules?: string; memory?: string }>;
  taskHistory: AppendFile;
  memoryFile: string;
  storageDir: string;
  /** Aborted by Agent.shutdown(): in-flight model calls give up. */
  signal: AbortSignal;
  /** The turn running right now per session, with its AbortController (Stop, Cancel). */
  turns: TurnRegistry;
  /** When this process started its loop: a trigger due before it was late because VS Code was closed. */
  startedAt: number;
  /** Stops work a task owns outside its turn (an approved command running); resolves when it is gone. */
  stopTaskWork(taskId: string): Promise<void>;
  /** Sessions that got a reply while their turn ran: finalize continues instead of sleeping. */
  pendingWake: Set<string>;
  /** The turn running in each session right now (what Stop aborts, what streams to the sidebar). */
  liveTurns: Map<string, LiveTurn>;
  /** Known secrets and credential shapes out of text (what streams to the sidebar, as what is stored). */
  redact: (text: string) => string;
}

/** Where a waiting task re-arms to when nobody answers (docs/DESIGN.md §2: no model call). */
export const WAIT_REARM_MS = 3 * 60 * 60 * 1000;
/** A trigger delivered later than this after its fire time tells the model so. */
export const LATE_NOTE_MS = 2 * 60 * 1000;
/** A timed trigger more overdue than this is not run blindly: it is settled as stale and shown. */
export const STALE_MS = 24 * 60 * 60 * 1000;
/** Priority of user messages (runs before continuations). */
export const USER_PRIORITY = 10;

/** One running turn of a session, as the person sees and stops it (made by runLiveTurn in liveTurn.ts). */
export interface LiveTurn {
  readonly id: string;
  /** Aborted by Stop or by the agent shutting down: passed to the turn's model calls. */
  readonly signal: AbortSignal;
  /** The turn's stream: its onDelta goes into the model request. */
  readonly stream: TurnStream;
  /** True once the person pressed Stop (as opposed to a shutdown). */
  readonly stopped: boolean;
  /** Stops the turn: the model request is cancelled. */
  stop(): void;
}

/**
 * The claim of the trigger a turn runs for. A task turn that queues its continuation acks the
 * claim in the same transaction (`TriggerStore.ackAndEmit`): one durable write settles the turn
 * and makes its next step durable, and a crash keeps both or neither. `acked` tells the agent's
 * loop the ack is done.
 */
export interface TurnClaim {
  readonly token: string;
  acked: boolean;
}
