/** The services every part of the engine shares, built once by the Agent. */
import type { ModelClient } from '../model/types';
import type { Skill } from '../skills/skills';
import type { TriggerStore } from '../store/types';
import type { AppendFile } from './eventLog';
import type { LiveTurn } from './liveTurn';
import type { PipelineEnv } from './pipeline';
import type { AgentSettings } from './types';

export interface EngineEnv extends PipelineEnv {
  triggers: TriggerStore;
  model: () => Promise<ModelClient>;
  settings: () => AgentSettings;
  skills(): Skill[];
  /** AGENTS.md and MEMORY.md, read fresh (they go into prefixes fixed at task start). */
  prefixContext(): Promise<{ rules?: string; memory?: string }>;
  taskHistory: AppendFile;
  memoryFile: string;
  storageDir: string;
  /** Aborted by Agent.stop(): in-flight model calls give up. */
  signal: AbortSignal;
  /** Sessions whose turn is running right now (a reply then needs no extra trigger). */
  busy: Set<string>;
  /** Sessions that got a reply while their turn ran: finalize continues instead of sleeping. */
  pendingWake: Set<string>;
  /** The turn running in each session right now (what Stop aborts, what streams to the sidebar). */
  liveTurns: Map<string, LiveTurn>;
}

/** Where a waiting task re-arms to when nobody answers (docs/DESIGN.md §2: no model call). */
export const WAIT_REARM_MS = 3 * 60 * 60 * 1000;
/** Priority of user messages (runs before continuations). */
export const USER_PRIORITY = 10;
