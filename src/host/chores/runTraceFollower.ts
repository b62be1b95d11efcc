import type { ChoreRunRecord } from '../../core/chores/runLog';
import type { ChoreHostMessage } from '../../shared/choreProtocol';
import { toStepView } from './choreViews';

/**
 * Keeps the sidebar's open run trace live: sends only the steps that changed since they were last
 * shown, and follows the chore to its next run when one starts while its trace is open.
 */
export class RunTraceFollower {
  private open: { runId: string; seen: Map<number, string> } | undefined;

  constructor(
    private readonly runOf: (runId: string) => ChoreRunRecord | undefined,
    private readonly post: (message: ChoreHostMessage) => void,
  ) {}

  /** The sidebar opened this run's trace: its steps as they are now. */
  openRun(runId: string): ChoreHostMessage {
    const run = this.runOf(runId);
    if (!run) return { type: 'choreRunSteps', runId, steps: [] };
    this.open = { runId: run.runId, seen: new Map(run.steps.map((s) => [s.id, JSON.stringify(s)])) };
    return { type: 'choreRunSteps', runId: run.runId, steps: run.steps.map(toStepView) };
  }

  /** A run changed: patch the steps of the open trace. */
  changed(run: ChoreRunRecord): void {
    // A new run of the chore whose trace is open: follow it.
    if (
      this.open &&
      this.open.runId !== run.runId &&
      this.runOf(this.open.runId)?.choreId === run.choreId &&
      run.status === 'running' &&
      run.steps.length === 0
    ) {
      this.open = { runId: run.runId, seen: new Map() };
      this.post({ type: 'choreRunSteps', runId: run.runId, steps: [] });
    }
    if (this.open?.runId !== run.runId) return;
    for (const step of run.steps) {
      const json = JSON.stringify(step);
      if (this.open.seen.get(step.id) === json) continue;
      this.open.seen.set(step.id, json);
      this.post({ type: 'choreStepPatch', runId: run.runId, step: toStepView(step) });
    }
  }
}
