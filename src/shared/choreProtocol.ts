/**
 * The sidebar protocol's chore part: the chore list, run history and a run's live step trace.
 * (src/shared/protocol.ts joins it with the rest.)
 */
import * as z from 'zod/v4';

export interface ChoreRunView {
  id: string;
  choreId: string;
  status: string;
  startedAt: number;
  endedAt?: number;
  reason?: string;
  /** A running run paused at its budget (core/chores/budgetPause.ts): what it reached; Resume continues it. */
  pausedAtBudget?: string;
  usage: { iterations: number; inputTokens: number; outputTokens: number; cost: number; costEstimated?: boolean };
}

export interface ChoreStepView {
  seq: number;
  tool: string;
  status: 'running' | 'ok' | 'error';
  args: string;
  result?: string;
  durationMs?: number;
}

/** What a chore does, shown before the person enables it (consent is bound to `definitionHash`). */
export interface ChoreReview {
  definitionHash: string;
  prompt: string;
  /** Always includes `read`. */
  actionSets: string[];
  skills: string[];
  /** Each named skill's instructions as the model gets them (no body: no such skill is installed). */
  skillBodies: Array<{ name: string; body?: string }>;
  /** The workspace's AGENTS.md, which every chore's prompt starts with (absent: the workspace has none). */
  workspaceRules?: string;
  /** "10 model calls, 600 s, 1000000 input tokens, $1 per run". */
  budget: string;
  /** "webhook to 127.0.0.1:9000", "Slack (secret team-slack)", "email to a@b.c (secret ops-smtp)". */
  escalation: string[];
  /** Each MCP server the chore declares: what it runs, the tools it may call without asking, the secrets it gets. */
  mcp?: string[];
  /** onFailure, retries, concurrency in one line. */
  policy: string;
}

export interface ChoreView {
  id: string;
  name: string;
  /** Set when the model has no known price: the chore's cost will be estimated, and how to give a real price. */
  costNote?: string;
  /** Human description of the trigger ("cron 0 2 * * * (Europe/Paris)", "files src/**", "task build exitCode != 0"). */
  trigger: string;
  enabled: boolean;
  /**
   * `needed`: the chore came with the workspace (or changed since it was enabled) and stays
   * disabled until the person enables it; `given`: enabled on this machine for this definition.
   * Absent for a chore that does not validate.
   */
  consent?: 'needed' | 'given';
  review?: ChoreReview;
  /** Why the chore is disabled (a validation error), with its line. */
  problem?: string;
  nextFireAt?: number;
  lastRun?: ChoreRunView;
  /** The last runs, skips and misses (newest first, at most {@link CHART_RUNS}), for the history chart. */
  recentRuns?: ChoreRunView[];
  /** Set while a tripped budget cap pauses the chore: why. The card offers Resume. */
  paused?: string;
}

export { CHART_RUNS } from './viewConstants';

export type ChoreHostMessage =
  | { type: 'chorePatch'; chore: ChoreView }
  | { type: 'choreRemoved'; id: string }
  | { type: 'choreRunPatch'; run: ChoreRunView }
  | { type: 'choreRunSteps'; runId: string; steps: ChoreStepView[] }
  | { type: 'choreStepPatch'; runId: string; step: ChoreStepView };

const id = z.string().min(1).max(200);

export const choreMessageSchemas = [
  z.object({ type: z.literal('chore.runNow'), id }),
  z.object({ type: z.literal('chore.openRun'), runId: id }),
  z.object({ type: z.literal('chore.new') }),
  z.object({ type: z.literal('chore.openFile') }),
  // The hash of the definition the card showed: a definition that changed meanwhile is not enabled.
  z.object({ type: z.literal('chore.enable'), id, hash: z.string().regex(/^[0-9a-f]{64}$/) }),
  z.object({ type: z.literal('chore.disable'), id }),
  z.object({ type: z.literal('chore.resume'), id }),
] as const;

export type ChoreWebviewMessage = z.infer<(typeof choreMessageSchemas)[number]>;
