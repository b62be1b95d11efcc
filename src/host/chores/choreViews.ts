import type { ChoreRunRecord, ChoreStep } from '../../core/chores/runLog';
import type { ChoreDefinition } from '../../core/chores/types';
import { choreDefinitionHash } from '../../core/consent/definitionHash';
import { CHART_RUNS } from '../../shared/choreProtocol';
import type { ChoreReview, ChoreRunView, ChoreStepView, ChoreView } from '../../shared/choreProtocol';

/** How the sidebar names a trigger. */
export function describeTrigger(chore: ChoreDefinition): string {
  const t = chore.trigger;
  if (t.kind === 'cron') return `cron ${t.cron}${t.timezone ? ` (${t.timezone})` : ''}`;
  if (t.kind === 'files') return `files ${t.globs.join(', ')}`;
  if (t.kind === 'diagnostics') return `new ${t.severity === 'error' ? 'errors' : 'problems'} in ${t.globs.join(', ')}`;
  if (t.kind === 'git') return 'git HEAD moved (commit, checkout, pull)';
  return `task ${t.name}${t.when ? ` when ${t.when}` : ''}`;
}

export function toRunView(run: ChoreRunRecord): ChoreRunView {
  return {
    id: run.runId,
    choreId: run.choreId,
    status: run.status,
    startedAt: run.startedAt,
    ...(run.endedAt !== null ? { endedAt: run.endedAt } : {}),
    ...(run.reason ? { reason: run.reason } : {}),
    usage: {
      iterations: run.usage.iterations,
      inputTokens: run.usage.inputTokens + run.usage.cacheReadTokens + run.usage.cacheWriteTokens,
      outputTokens: run.usage.outputTokens,
      cost: run.usage.costUsd,
    },
  };
}

export function toStepView(step: ChoreStep): ChoreStepView {
  return {
    seq: step.id,
    tool: step.name,
    status: step.status,
    args: step.args,
    ...(step.status !== 'running' ? { result: step.result } : {}),
    ...(step.durationMs !== null ? { durationMs: step.durationMs } : {}),
  };
}

/** Everything a person should see before enabling a chore. */
export function toChoreReview(chore: ChoreDefinition): ChoreReview {
  const b = chore.budget;
  const e = chore.escalate;
  const escalation = [
    ...(e?.webhook ? [e.webhook.url !== undefined ? `webhook POST to ${hostOf(e.webhook.url)}` : `webhook at the URL in secret "${e.webhook.urlSecret}"`] : []),
    ...(e?.slack ? [`Slack webhook in secret "${e.slack.urlSecret}"`] : []),
    ...(e?.email
      ? [`email to ${e.email.to.join(', ')} through the SMTP server in secret "${e.email.smtpSecret}"${e.email.from ? `, from ${e.email.from}` : ''}`]
      : []),
  ];
  return {
    definitionHash: choreDefinitionHash(chore),
    prompt: chore.prompt,
    actionSets: [...new Set(['read', ...chore.actionSets])],
    skills: chore.skills,
    budget: `${b.maxIterations} model calls, ${b.maxSeconds} s, ${b.maxInputTokens} input tokens, $${b.maxCostUsd} per run${chore.spendLimits?.maxCostUsdPerDay !== undefined ? `, $${chore.spendLimits.maxCostUsdPerDay} per day` : ''}${chore.spendLimits?.maxCostUsdPerMonth !== undefined ? `, $${chore.spendLimits.maxCostUsdPerMonth} per month` : ''}`,
    escalation,
    policy: `on failure: ${chore.onFailure}${chore.onFailure === 'retry' ? ` (up to ${chore.maxRetries} retries)` : ''}; concurrency: ${chore.concurrency}${chore.successWhen ? `; succeeds when ${chore.successWhen}` : ''}`,
  };
}

/** A webhook URL's host (a URL may carry a token in its path or query: never show more). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(an invalid URL)';
  }
}

export function toChoreView(
  chore: ChoreDefinition,
  extra: {
    nextFireAt?: number;
    lastRun?: ChoreRunRecord;
    recent?: readonly ChoreRunRecord[];
    problem?: string;
    enabled: boolean;
    consent: 'needed' | 'given';
    paused?: string;
  },
): ChoreView {
  return {
    id: chore.id,
    name: chore.name,
    trigger: describeTrigger(chore),
    enabled: extra.enabled,
    consent: extra.consent,
    review: toChoreReview(chore),
    ...(extra.problem ? { problem: extra.problem } : {}),
    ...(extra.paused ? { paused: extra.paused } : {}),
    ...(extra.nextFireAt !== undefined ? { nextFireAt: extra.nextFireAt } : {}),
    ...(extra.lastRun ? { lastRun: toRunView(extra.lastRun) } : {}),
    ...(extra.recent?.length ? { recentRuns: extra.recent.slice(0, CHART_RUNS).map(toRunView) } : {}),
  };
}
