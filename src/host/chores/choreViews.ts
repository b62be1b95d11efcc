import type { ChoreRunRecord, ChoreStep } from '../../core/chores/runLog';
import type { ChoreDefinition } from '../../core/chores/types';
import type { ChoreRunView, ChoreStepView, ChoreView } from '../../shared/choreProtocol';

/** How the sidebar names a trigger. */
export function describeTrigger(chore: ChoreDefinition): string {
  const t = chore.trigger;
  if (t.kind === 'cron') return `cron ${t.cron}${t.timezone ? ` (${t.timezone})` : ''}`;
  if (t.kind === 'files') return `files ${t.globs.join(', ')}`;
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
    usage: { iterations: run.usage.iterations, inputTokens: run.usage.inputTokens + run.usage.cacheReadTokens + run.usage.cacheWriteTokens, outputTokens: run.usage.outputTokens, cost: run.usage.costUsd },
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

export function toChoreView(chore: ChoreDefinition, extra: { nextFireAt?: number; lastRun?: ChoreRunRecord; problem?: string; enabled: boolean }): ChoreView {
  return {
    id: chore.id,
    name: chore.name,
    trigger: describeTrigger(chore),
    enabled: extra.enabled,
    ...(extra.problem ? { problem: extra.problem } : {}),
    ...(extra.nextFireAt !== undefined ? { nextFireAt: extra.nextFireAt } : {}),
    ...(extra.lastRun ? { lastRun: toRunView(extra.lastRun) } : {}),
  };
}
