import { costText } from './costText';
import { CHART_RUNS } from './viewConstants';
import type { ChoreRunView } from './choreProtocol';

/**
 * A chore's history at a glance: its last runs (oldest first), each with its outcome, duration and
 * cost, and one summary sentence. The Chores view (src/host/views/choresTree.ts) shows the summary
 * on the chore and each bar's label on its run.
 */

export type ChartOutcome = 'succeeded' | 'failed' | 'budget' | 'review' | 'not_run' | 'running' | 'cancelled';

/** One bar of the chart, in chart units (0..1 of the tallest), with its text for assistive tech and tooltips. */
export interface ChartBar {
  runId: string;
  outcome: ChartOutcome;
  durationMs: number;
  cost: number;
  /** The cost is the conservative estimate for a model with no known price. */
  costEstimated?: boolean;
  /** 0..1 of the longest run shown (a run that never ran gets a fixed stub). */
  height: number;
  /** 0..1 of the costliest run shown. */
  costHeight: number;
  /** "succeeded, 12 s, $0.010, 1 Dec 10:00". */
  label: string;
}

export interface ChartModel {
  bars: ChartBar[];
  /** The chart's accessible name: what the last runs amount to. */
  summary: string;
}

const outcomeOf: Record<string, ChartOutcome> = {
  succeeded: 'succeeded',
  failed: 'failed',
  // The chart's colours stay few: the run's reason (in the label) says which check failed, or that
  // nothing changed.
  checks_failed: 'failed',
  nothing_to_change: 'succeeded',
  budget_exhausted: 'budget',
  awaiting_review: 'review',
  skipped: 'not_run',
  missed: 'not_run',
  running: 'running',
  cancelled: 'cancelled',
};

const outcomeWords: Record<ChartOutcome, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  budget: 'stopped by budget',
  review: 'awaiting review',
  not_run: 'skipped or missed',
  running: 'running',
  cancelled: 'cancelled',
};

/** Stub height of an occurrence that never ran, so it still shows in the row. */
const NOT_RUN_HEIGHT = 0.12;

/** The chart of `runs` (newest first, as the host sends them); `now` dates a running run. */
export function choreChartModel(runs: readonly ChoreRunView[], now: number): ChartModel {
  const shown = runs.slice(0, CHART_RUNS).reverse();
  const durations = shown.map((r) => Math.max(0, (r.endedAt ?? now) - r.startedAt));
  const longest = Math.max(1, ...shown.map((r, i) => (outcomeOf[r.status] === 'not_run' ? 0 : durations[i])));
  const costliest = Math.max(0, ...shown.map((r) => r.usage.cost));
  const bars = shown.map((run, i): ChartBar => {
    const outcome = outcomeOf[run.status] ?? 'failed';
    const durationMs = outcome === 'not_run' ? 0 : durations[i];
    return {
      runId: run.id,
      outcome,
      durationMs,
      cost: run.usage.cost,
      ...(run.usage.costEstimated ? { costEstimated: true } : {}),
      height: outcome === 'not_run' ? NOT_RUN_HEIGHT : Math.max(0.04, durationMs / longest),
      costHeight: costliest > 0 ? run.usage.cost / costliest : 0,
      label: `${outcomeWords[outcome]}${outcome === 'not_run' ? '' : `, ${seconds(durationMs)}, ${costText(run.usage.cost, run.usage.costEstimated)}`}, ${new Date(run.startedAt).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })}${run.reason ? `: ${run.reason}` : ''}`,
    };
  });
  if (bars.length === 0) return { bars, summary: 'No runs yet.' };
  const counts = new Map<ChartOutcome, number>();
  for (const bar of bars) counts.set(bar.outcome, (counts.get(bar.outcome) ?? 0) + 1);
  const ran = bars.filter((b) => b.outcome !== 'not_run');
  const total = ran.reduce((sum, b) => sum + b.cost, 0);
  const median = ran.length ? ran.map((b) => b.durationMs).sort((a, b) => a - b)[Math.floor((ran.length - 1) / 2)] : 0;
  const parts = (Object.keys(outcomeWords) as ChartOutcome[]).filter((o) => counts.has(o)).map((o) => `${counts.get(o)} ${outcomeWords[o]}`);
  const last = bars[bars.length - 1];
  return {
    bars,
    summary: `Last ${bars.length} run${bars.length === 1 ? '' : 's'}: ${parts.join(', ')}. ${
      ran.length
        ? `Median duration ${seconds(median)}, total cost ${costText(
            total,
            ran.some((b) => b.costEstimated),
          )}. `
        : ''
    }Latest: ${last.label}.`,
  };
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
