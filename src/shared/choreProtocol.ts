/**
 * The sidebar protocol's chore part: the chore list, run history and a run's live step trace.
 * (src/shared/protocol.ts joins it with the rest.)
 */
import { z } from 'zod';

export interface ChoreRunView {
  id: string;
  choreId: string;
  status: string;
  startedAt: number;
  endedAt?: number;
  reason?: string;
  usage: { iterations: number; inputTokens: number; outputTokens: number; cost: number };
}

export interface ChoreStepView {
  seq: number;
  tool: string;
  status: 'running' | 'ok' | 'error';
  args: string;
  result?: string;
  durationMs?: number;
}

export interface ChoreView {
  id: string;
  name: string;
  /** Human description of the trigger ("cron 0 2 * * * (Europe/Paris)", "files src/**", "task build exitCode != 0"). */
  trigger: string;
  enabled: boolean;
  /** Why the chore is disabled (a validation error), with its line. */
  problem?: string;
  nextFireAt?: number;
  lastRun?: ChoreRunView;
}

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
] as const;

export type ChoreWebviewMessage = z.infer<(typeof choreMessageSchemas)[number]>;
