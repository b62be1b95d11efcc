import { costText } from '../shared/costText';
import { CHART_RUNS } from '../shared/viewConstants';
import type { ChoreRunView } from '../shared/choreProtocol';

/**
 * A chore's history at a glance: its last runs (oldest left) as bars whose height is the run's
 * duration, with a cost strip below. The outcome is told by colour AND shape, never colour alone:
 * a solid bar succeeded, a hatched bar failed, an outlined bar stopped on its budget, a dotted
 * outline waits for review, a short stub was skipped or missed. Theme colours only.
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

const SVG = 'http://www.w3.org/2000/svg';
const BAR_W = 8;
const GAP = 3;
const TALL = 28;
const COST_TALL = 6;

/** Fill and stroke per outcome: theme chart colours; the shape differs too (see the file comment). */
const look: Record<ChartOutcome, { colour: string; fill: 'solid' | 'hatch' | 'none'; dash?: string }> = {
  succeeded: { colour: 'var(--vscode-charts-green)', fill: 'solid' },
  failed: { colour: 'var(--vscode-charts-red)', fill: 'hatch' },
  budget: { colour: 'var(--vscode-charts-orange)', fill: 'none' },
  review: { colour: 'var(--vscode-charts-blue)', fill: 'none', dash: '2 2' },
  not_run: { colour: 'var(--vscode-descriptionForeground)', fill: 'solid' },
  running: { colour: 'var(--vscode-charts-blue)', fill: 'none', dash: '1 3' },
  cancelled: { colour: 'var(--vscode-descriptionForeground)', fill: 'hatch' },
};

let hatchIds = 0;

/** The chart as an inline SVG (role="img", its summary as aria-label, one titled bar per run). */
export function renderChoreChart(model: ChartModel): SVGSVGElement {
  const width = Math.max(1, model.bars.length) * (BAR_W + GAP);
  const height = TALL + 2 + COST_TALL;
  const svg = el('svg', { class: 'chore-chart', role: 'img', 'aria-label': model.summary, width, height, viewBox: `0 0 ${width} ${height}` }) as SVGSVGElement;
  svg.appendChild(el('title', {}, model.summary));
  // One hatch pattern per chart and colour (ids are document-wide).
  const defs = el('defs', {});
  const hatch: Partial<Record<string, string>> = {};
  for (const bar of model.bars) {
    const { colour, fill } = look[bar.outcome];
    if (fill !== 'hatch' || hatch[colour]) continue;
    const id = `chore-hatch-${++hatchIds}`;
    hatch[colour] = id;
    const pattern = el('pattern', { id, width: 3, height: 3, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' });
    const line = el('rect', { width: 1.5, height: 3 });
    line.style.fill = colour;
    pattern.appendChild(line);
    defs.appendChild(pattern);
  }
  svg.appendChild(defs);
  model.bars.forEach((bar, i) => {
    const { colour, fill, dash } = look[bar.outcome];
    const x = i * (BAR_W + GAP);
    const h = Math.max(1, Math.round(bar.height * TALL));
    const group = el('g', { class: 'chart-run', 'data-run-id': bar.runId, 'data-outcome': bar.outcome });
    group.appendChild(el('title', {}, bar.label));
    const rect = el('rect', { class: 'chart-bar', x: x + 0.5, y: TALL - h + 0.5, width: BAR_W - 1, height: Math.max(0, h - 1) });
    rect.style.stroke = colour;
    rect.style.fill = fill === 'solid' ? colour : fill === 'hatch' ? `url(#${hatch[colour]})` : 'none';
    if (dash) rect.style.strokeDasharray = dash;
    group.appendChild(rect);
    if (bar.costHeight > 0) {
      const c = Math.max(1, Math.round(bar.costHeight * COST_TALL));
      const cost = el('rect', { class: 'chart-cost', x, y: height - c, width: BAR_W, height: c });
      cost.style.fill = 'var(--vscode-descriptionForeground)';
      group.appendChild(cost);
    }
    svg.appendChild(group);
  });
  return svg;
}

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}
