/**
 * "Preview Chore": the next fires of a cron chore in its time zone, and a dry run showing what a
 * fire would be told and given (prompt with its trigger context, action sets, skills, budgets)
 * WITHOUT calling the model. The dry run builds its task through {@link choreStartSpec}, the
 * function the runner starts every real fire with, so the preview cannot drift from a real run.
 */
import { choreStartSpec } from './choreStartSpec';
import type { ChoreStartSpec } from './choreStartSpec';
import { describeFireContext } from './fireContext';
import type { ChoreFireContext } from './fireContext';
import type { ChoreRunCause } from './runLog';
import { describeDuration, intervalAfter, nextFires } from './schedule';
import type { ChoreSpendLedger, WorkspaceSpendLimits } from './spendLedger';
import { unpricedNote } from '../model/pricing';
import type { ModelPrices } from '../model/pricing';
import type { ChoreBudget, ChoreDefinition } from './types';

/** One upcoming fire, as an instant and as the wall-clock time of the schedule's zone. */
export interface PreviewFire {
  at: number;
  utc: string;
  /** e.g. "Tue 2026-12-01 03:00 (Europe/Paris)". */
  local: string;
}

/** What a fire would get, built as a real fire builds it. */
export interface ChoreDryRun extends ChoreStartSpec {
  cause: ChoreRunCause;
  fireTime: string;
  /** The trigger part of the prompt on its own (empty when the cause adds none). */
  triggerContext: string;
  budget: {
    perRun: ChoreBudget;
    /** The chore's rolling caps and what it spent against them (USD). */
    chore: { maxCostUsdPerDay?: number; maxCostUsdPerMonth?: number; spentToday: number; spentThisMonth: number };
    /** The workspace caps across chores (0: none) and what all chores spent. */
    workspace: WorkspaceSpendLimits & { spentToday: number; spentThisMonth: number };
    /** Set when a rolling cap is already reached: the fire would stop at its first model call. */
    exhausted?: string;
    /** Set when the model has no known price: its cost will be estimated, and how to give a real price. */
    costEstimated?: string;
  };
}

export interface ChorePreview {
  choreId: string;
  /** Empty for a chore that is not cron-triggered. */
  nextFires: PreviewFire[];
  timezone: string;
  /** What happens to fires VS Code misses (closed, asleep), per `drift`; undefined for a chore that is not cron-triggered. */
  drift?: string;
  dryRun: ChoreDryRun;
}

export interface PreviewOptions {
  now: number;
  /** How many next fires to list (default 5). */
  count?: number;
  /** The zone to show times in when the chore names none (the machine's). */
  localZone?: string;
  /** For the dry run of an event chore: the context its fire would carry (default: a Run now). */
  context?: ChoreFireContext;
  spend?: ChoreSpendLedger;
  workspaceLimits?: WorkspaceSpendLimits;
  /**
   * The model chore runs will use, the person's prices, and where a price is given (the setting,
   * or the CLI's variable): an unpriced model gets a note that its cost will be estimated.
   */
  model?: ModelCostContext;
}

/** The model a chore runs on, as far as its cost is concerned. */
export interface ModelCostContext {
  id: string;
  prices?: ModelPrices;
  /** Where a price is given: `tasklane.model.prices` in VS Code, `TASKLANE_MODEL_PRICES` headless. */
  where: string;
}

/** Says when a chore's cost will be estimated (its model has no known price) and how to give a real one. */
export function costEstimateNote(model: ModelCostContext | undefined): string | undefined {
  return model ? unpricedNote(model.id, model.prices, model.where) : undefined;
}

/**
 * The preview of one chore. A cron chore's dry run is its next scheduled fire, on time; any other
 * chore's is the fire its `context` describes, or a Run now when none is given.
 */
export function previewChore(chore: ChoreDefinition, options: PreviewOptions): ChorePreview {
  const cron = chore.trigger.kind === 'cron' ? chore.trigger : undefined;
  const timezone = cron?.timezone ?? options.localZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const fires = cron ? nextFires({ cron: cron.cron, ...(cron.timezone ? { timezone: cron.timezone } : {}) }, options.now, options.count ?? 5) : [];
  const cause: ChoreRunCause = cron ? 'cron' : options.context ? (options.context.kind as ChoreRunCause) : 'manual';
  const fireAt = fires[0] ?? options.now;
  const fire = {
    cause,
    fireTime: new Date(fireAt).toISOString(),
    startedAt: fireAt,
    missed: false,
    ...(options.context && !cron ? { context: options.context } : {}),
  };
  const spec = choreStartSpec(chore, fire);
  const triggerContext = describeFireContext({ ...fire, ...(cron?.timezone ? { timezone: cron.timezone } : {}) });
  const workspace = options.workspaceLimits ?? { maxCostUsdPerDay: 0, maxCostUsdPerMonth: 0 };
  const own = options.spend?.spent(chore.id) ?? { day: 0, month: 0 };
  const all = options.spend?.spent() ?? { day: 0, month: 0 };
  const check = options.spend?.check(chore.id, chore.spendLimits ?? {}, workspace);
  const costNote = costEstimateNote(options.model);
  return {
    choreId: chore.id,
    nextFires: fires.map((at) => ({ at, utc: new Date(at).toISOString(), local: wallClock(at, timezone) })),
    timezone,
    ...(cron ? { drift: describeDrift(chore.drift, fires[0] !== undefined ? intervalAfter(cron, fires[0]) : undefined) } : {}),
    dryRun: {
      ...spec,
      cause,
      fireTime: fire.fireTime,
      triggerContext,
      budget: {
        perRun: { ...chore.budget },
        chore: { ...(chore.spendLimits ?? {}), spentToday: own.day, spentThisMonth: own.month },
        workspace: { ...workspace, spentToday: all.day, spentThisMonth: all.month },
        ...(check && !check.ok ? { exhausted: check.message } : {}),
        ...(costNote ? { costEstimated: costNote } : {}),
      },
    },
  };
}

/** The preview as Markdown, for the read-only document "Preview Chore" opens. */
export function previewMarkdown(chore: ChoreDefinition, preview: ChorePreview): string {
  const { dryRun: d } = preview;
  const b = d.budget;
  const cap = (v: number | undefined) => (v ? `$${v}` : 'none');
  const fence = '`'.repeat(Math.max(3, ...[...d.prompt.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return [
    `# Preview of chore "${chore.name}" (${chore.id})`,
    '',
    '## Next fires',
    '',
    ...(preview.nextFires.length
      ? preview.nextFires.map((f) => `- ${f.local} — ${f.utc}`)
      : [`- This chore fires on ${chore.trigger.kind} events, not on a schedule.`]),
    ...(preview.drift ? ['', `Missed fires: ${preview.drift}`] : []),
    '',
    `## Dry run (${d.cause === 'cron' ? `the next scheduled fire, ${d.fireTime}` : d.cause === 'manual' ? 'a Run now' : `a ${d.cause} fire`}; no model was called)`,
    '',
    `- Task: ${d.name}, mode ${d.mode}`,
    `- Action sets: ${d.actionSets.join(', ')}`,
    `- Skills: ${d.skills.length ? d.skills.join(', ') : 'none'}`,
    `- Budget per run: ${b.perRun.maxIterations} model calls, ${b.perRun.maxSeconds} s, ${b.perRun.maxInputTokens} input tokens, $${b.perRun.maxCostUsd}`,
    `- This chore: today $${b.chore.spentToday.toFixed(2)} of ${cap(b.chore.maxCostUsdPerDay)}, this month $${b.chore.spentThisMonth.toFixed(2)} of ${cap(b.chore.maxCostUsdPerMonth)}`,
    `- All chores: today $${b.workspace.spentToday.toFixed(2)} of ${cap(b.workspace.maxCostUsdPerDay)}, this month $${b.workspace.spentThisMonth.toFixed(2)} of ${cap(b.workspace.maxCostUsdPerMonth)}`,
    ...(b.exhausted ? [`- **A cap is reached: ${b.exhausted}. This fire would stop before its first model call.**`] : []),
    ...(b.costEstimated ? [`- **Cost will be estimated:** ${b.costEstimated}`] : []),
    '',
    '### Trigger context',
    '',
    d.triggerContext || '(none)',
    '',
    '### Instruction the task starts with',
    '',
    fence,
    d.prompt,
    fence,
    '',
  ].join('\n');
}

/** The drift policy in words, with the chore's interval for `skip`. */
export function describeDrift(drift: ChoreDefinition['drift'], intervalMs: number | undefined): string {
  const interval = intervalMs !== undefined ? ` (${describeDuration(intervalMs)} here)` : '';
  switch (drift) {
    case 'latest':
      return 'drift: latest — after VS Code was closed or asleep, the most recent missed fire runs once; older ones are listed as missed.';
    case 'catchup':
      return 'drift: catchup — after VS Code was closed or asleep, the missed fires run in order, at most the 10 most recent.';
    case 'skip':
      return `drift: skip — a fire runs when it is less than one interval late${interval}, so a machine waking a few minutes late still runs it; a fire more than one interval late is dropped and listed as skipped.`;
  }
}

function wallClock(at: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} (${timeZone})`;
}
