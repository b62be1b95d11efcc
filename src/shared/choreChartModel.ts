import { costText, costWords } from './costText';
import { CHART_RUNS } from './viewConstants';
import type { ChoreRunView } from './choreProtocol';
import { ENGLISH } from './translator';
import type { Translator } from './translator';

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

/** The order outcomes are counted in the summary. */
const OUTCOMES: ChartOutcome[] = ['succeeded', 'failed', 'budget', 'review', 'not_run', 'running', 'cancelled'];

/** An outcome in words (translated where the host passes `vscode.l10n`). */
function outcomeWords(l10n: Translator, outcome: ChartOutcome): string {
  switch (outcome) {
    case 'succeeded':
      return l10n.t('succeeded');
    case 'failed':
      return l10n.t('failed');
    case 'budget':
      return l10n.t('stopped by budget');
    case 'review':
      return l10n.t('awaiting review');
    case 'not_run':
      return l10n.t('skipped or missed');
    case 'running':
      return l10n.t('running');
    case 'cancelled':
      return l10n.t('cancelled');
  }
}

/** How a run's reason starts when its checks passed (written by src/core/chores/runChecks.ts). */
export const VERIFIED_REASON = 'verified by ';

/**
 * A chore run's end state in a person's words, as every surface names it (docs/DESIGN.md §7):
 * "verified" only when the project's checks passed (the runner's reason says "verified by …",
 * src/core/chores/runChecks.ts), "done, not checked" when the run succeeded with
 * no checks declared, "paused at budget" for a run parked at its cap (Resume continues it),
 * "needs you" for a run awaiting review. The run's own reason says which checks and how long.
 */
export function runEndWords(run: Pick<ChoreRunView, 'status' | 'reason' | 'pausedAtBudget'>, l10n: Translator = ENGLISH): string {
  if (run.pausedAtBudget !== undefined) return l10n.t('paused at budget');
  if (run.status === 'succeeded') return run.reason?.startsWith(VERIFIED_REASON) ? l10n.t('verified') : l10n.t('done, not checked');
  return runStatusWords(run.status, l10n);
}

/** A chore run's status as the Chores view names its row ("checks failed", "nothing to change"…). */
function runStatusWords(status: string, l10n: Translator = ENGLISH): string {
  switch (status) {
    case 'checks_failed':
      return l10n.t('checks failed');
    case 'nothing_to_change':
      return l10n.t('nothing to change');
    case 'budget_exhausted':
      return l10n.t('stopped at budget');
    case 'awaiting_review':
      return l10n.t('needs you');
    case 'skipped':
      return l10n.t('skipped');
    case 'missed':
      return l10n.t('missed');
    default: {
      const outcome = outcomeOf[status];
      return outcome && outcome === status ? outcomeWords(l10n, outcome) : status.replace(/_/g, ' ');
    }
  }
}

/** Stub height of an occurrence that never ran, so it still shows in the row. */
const NOT_RUN_HEIGHT = 0.12;

/**
 * The chart of `runs` (newest first, as the host sends them); `now` dates a running run; `l10n` is
 * `vscode.l10n` where the host shows the words (English without it).
 */
export function choreChartModel(runs: readonly ChoreRunView[], now: number, l10n: Translator = ENGLISH): ChartModel {
  const seconds = (ms: number) => (ms < 60_000 ? l10n.t('{0} s', Math.round(ms / 1000)) : l10n.t('{0} min', Math.round(ms / 60_000)));
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
      label: barLabel(l10n, outcome, seconds(durationMs), costText(run.usage.cost, run.usage.costEstimated, 3, costWords(l10n)), run),
    };
  });
  if (bars.length === 0) return { bars, summary: l10n.t('No runs yet.') };
  const counts = new Map<ChartOutcome, number>();
  for (const bar of bars) counts.set(bar.outcome, (counts.get(bar.outcome) ?? 0) + 1);
  const ran = bars.filter((b) => b.outcome !== 'not_run');
  const total = ran.reduce((sum, b) => sum + b.cost, 0);
  const median = ran.length ? ran.map((b) => b.durationMs).sort((a, b) => a - b)[Math.floor((ran.length - 1) / 2)] : 0;
  const parts = OUTCOMES.filter((o) => counts.has(o))
    .map((o) => l10n.t('{0} {1}', counts.get(o)!, outcomeWords(l10n, o)))
    .join(', ');
  const last = bars[bars.length - 1];
  const runs_ = bars.length === 1 ? l10n.t('Last run: {0}. ', parts) : l10n.t('Last {0} runs: {1}. ', bars.length, parts);
  const cost = costText(
    total,
    ran.some((b) => b.costEstimated),
    3,
    costWords(l10n),
  );
  return {
    bars,
    summary: `${runs_}${ran.length ? l10n.t('Median duration {0}, total cost {1}. ', seconds(median), cost) : ''}${l10n.t('Latest: {0}.', last.label)}`,
  };
}

/** "succeeded, 12 s, $0.010, 1 Dec 10:00: reason" (no duration or cost for a run that never ran). */
function barLabel(l10n: Translator, outcome: ChartOutcome, duration: string, cost: string, run: ChoreRunView): string {
  const words = runEndWords(run, l10n);
  const when = new Date(run.startedAt).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  if (outcome === 'not_run') return run.reason ? l10n.t('{0}, {1}: {2}', words, when, run.reason) : l10n.t('{0}, {1}', words, when);
  return run.reason ? l10n.t('{0}, {1}, {2}, {3}: {4}', words, duration, cost, when, run.reason) : l10n.t('{0}, {1}, {2}, {3}', words, duration, cost, when);
}
