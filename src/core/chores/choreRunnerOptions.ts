import type { AgentChange, TaskView } from '../engine/types';
import type { Clock, Logger } from '../ports';
import type { TriggerStore } from '../store/types';
import type { FailurePolicyDeps } from './failurePolicy';
import type { PauseNoticeDeps } from './pauseNotice';
import type { ReviewNoticeDeps } from './reviewNotice';
import type { RunGateDeps } from './runGates';
import type { ChoreChecksPort } from './runChecks';
import type { ChoreRunLog } from './runLog';
import type { ChoreDefinition } from './types';

/** What the runner needs from the agent (the engine's public API). */
export interface ChoreAgentPort {
  views: {
    snapshot(): { tasks: TaskView[] };
    onDidChange(listener: (change: AgentChange) => void): { dispose(): void };
  };
  cancelTask(taskId: string): Promise<void>;
}

/**
 * What the runner is built from. Most fields are declared by the modules that use them: trust,
 * blocks and spend by runGates.ts; escalation (secrets, ledger, workspace name, redaction,
 * onEscalated, review and resume links) by failurePolicy.ts, reviewNotice.ts and pauseNotice.ts,
 * through runEscalation.ts.
 */
export interface ChoreRunnerOptions extends RunGateDeps, FailurePolicyDeps, ReviewNoticeDeps, PauseNoticeDeps {
  /** Fires are recorded here (Run now, file bursts, task ends); a queued fire is re-armed. */
  triggers: Pick<TriggerStore, 'emit' | 'rearm'>;
  runLog: ChoreRunLog;
  /** Cron bookkeeping: a fire stays outstanding until the runner marks it done. */
  scheduler?: { markDone(choreId: string, fireAtMs: number): Promise<void> };
  clock: Clock;
  logger: Logger;
  /**
   * What a run needs before its task starts (the command line starts the chore's MCP servers). A
   * throw fails the run with that error before any model call: it never runs on without it.
   */
  prepare?: (chore: ChoreDefinition) => Promise<void>;
  /** Runs a chore's `verify:` checks (runChecks.ts); without it a chore that declares checks ends `checks_failed`. */
  checks?: ChoreChecksPort;
  /** A run that reaches its own budget parks for a person to resume (budgetPause.ts); off, it ends `budget_exhausted`. */
  parkAtBudget?: boolean;
}
