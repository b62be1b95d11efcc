/**
 * What the sidebar's Chores section shows, as protocol views: a chore's card (trigger, review for
 * Enable, problem, next fire, recent runs), a run and its steps, and the texts that say where a
 * chore stands (why it does not run, what it spent). Pure mappings from the host's current facts,
 * kept out of ChoreHost so it only wires; the webview renders them (src/webview/chorePanel.ts).
 */
import type { ChoresFileResult } from '../../core/chores/choreFile';
import type { ChoreRunRecord, ChoreStep } from '../../core/chores/runLog';
import type { ChorePause } from '../../core/chores/spendLedger';
import { secretVariable } from '../../core/chores/secretScope';
import type { ChoreDefinition } from '../../core/chores/types';
import { choreDefinitionHash, WORKSPACE_RULES_KEY } from '../../core/consent/definitionHash';
import type { ChoreSkillBodies } from '../../core/consent/definitionHash';
import type { ChoreMcpFacts } from '../../core/consent/choreConsentHash';
import { CHART_RUNS } from '../../shared/choreProtocol';
import type { ChoreReview, ChoreRunView, ChoreStepView, ChoreView } from '../../shared/choreProtocol';
import type { ChoreSettings } from '../settings';

/** What the host knows of the servers a chore declares (computed in core, as the CLI does). */
export type { ChoreMcpFacts };

/** A chore and its recent runs, as `tasklane.getState` reports it (with `consent` and `review`). */
export interface ChoreStateView extends ChoreView {
  runs: ChoreRunView[];
  /** A consented files chore: the bursts its debounce fired so far, and whether one is being collected now. */
  files?: { fired: number; collecting: boolean };
}

/** What the host knows about each chore right now, for its card. */
export interface ChoreCardFacts {
  /** Workspace Trust, as it is now. */
  trusted: boolean;
  consentOf(chore: ChoreDefinition): 'given' | 'needed';
  /** The bodies of the chore's skills (shown for Enable and part of its hash). */
  skillBodies?(chore: ChoreDefinition): ChoreSkillBodies;
  /** Set when the chores' model has no known price: their cost will be estimated, and how to price it. */
  costNote?(): string | undefined;
  /** The MCP servers the chore names: what each runs, and the hashes of those from mcp.json (part of its hash). */
  mcpServers?(chore: ChoreDefinition): ChoreMcpFacts;
  /** Why a consented chore does not run now (master switch, `enabled: false`, a budget pause). */
  stoppedProblem(chore: ChoreDefinition): string | undefined;
  paused(choreId: string): ChorePause | undefined;
  nextFireAt(choreId: string): number | undefined;
  /** The chore's runs, newest first. */
  history(choreId: string): readonly ChoreRunRecord[];
}

/** Why a chore without consent does not run, for the sidebar and Run now. */
const consentProblem = 'Not enabled on this machine: it came with the workspace or changed since you enabled it. Review what it does, then Enable it.';

/** How the sidebar names a trigger. */
export function describeTrigger(chore: ChoreDefinition): string {
  const t = chore.trigger;
  if (t.kind === 'cron') return `cron ${t.cron}${t.timezone ? ` (${t.timezone})` : ''}`;
  if (t.kind === 'files') return `files ${t.globs.join(', ')}`;
  if (t.kind === 'diagnostics') return `new ${t.severity === 'error' ? 'errors' : 'problems'} in ${t.globs.join(', ')}`;
  if (t.kind === 'git') return 'git HEAD moved (commit, checkout, pull)';
  if (t.kind === 'github') return `runs on CI: GitHub ${t.github.event}${t.github.types?.length ? ` (${t.github.types.join(', ')})` : ''}`;
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
    // The reason a person reads while the run waits: what it reached, and how to go on.
    ...(run.parked ? { pausedAtBudget: run.parked.message, reason: `Paused at budget: ${run.parked.message}. Resume continues it.` } : {}),
    usage: {
      iterations: run.usage.iterations,
      inputTokens: run.usage.inputTokens + run.usage.cacheReadTokens + run.usage.cacheWriteTokens,
      outputTokens: run.usage.outputTokens,
      cost: run.usage.costUsd,
      ...(run.usage.costEstimated ? { costEstimated: true } : {}),
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
export function toChoreReview(chore: ChoreDefinition, skillBodies: ChoreSkillBodies = {}, mcp: ChoreMcpFacts = { hashes: {}, targets: {} }): ChoreReview {
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
    definitionHash: choreDefinitionHash(chore, skillBodies, mcp.hashes),
    prompt: chore.prompt,
    actionSets: [...new Set(['read', ...chore.actionSets])],
    skills: chore.skills,
    skillBodies: [...new Set(chore.skills)].map((name) => ({ name, ...(typeof skillBodies[name] === 'string' ? { body: skillBodies[name] } : {}) })),
    // In the hash (definitionHash.ts), so shown with the rest: the person's yes covers what they read.
    ...(typeof skillBodies[WORKSPACE_RULES_KEY] === 'string' ? { workspaceRules: skillBodies[WORKSPACE_RULES_KEY] } : {}),
    budget: `${b.maxIterations} model calls, ${b.maxSeconds} s, ${b.maxInputTokens} input tokens, $${b.maxCostUsd} per run${chore.spendLimits?.maxCostUsdPerDay !== undefined ? `, $${chore.spendLimits.maxCostUsdPerDay} per day` : ''}${chore.spendLimits?.maxCostUsdPerMonth !== undefined ? `, $${chore.spendLimits.maxCostUsdPerMonth} per month` : ''}`,
    escalation,
    ...(chore.mcp
      ? {
          mcp: Object.entries(chore.mcp).map(
            ([name, declared]) =>
              `${name} (${mcp.targets[name] ?? 'not defined in .vscode/mcp.json'}): may call ${declared.tools.join(', ')} without asking${declared.secrets?.length ? `; only this server gets ${declared.secrets.map((name) => `the secret ${name} (as ${secretVariable(name)})`).join(', ')}` : ''}`,
          ),
        }
      : {}),
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
    skillBodies?: ChoreSkillBodies;
    mcp?: ChoreMcpFacts;
    costNote?: string;
  },
): ChoreView {
  return {
    id: chore.id,
    name: chore.name,
    trigger: describeTrigger(chore),
    enabled: extra.enabled,
    consent: extra.consent,
    review: toChoreReview(chore, extra.skillBodies, extra.mcp),
    ...(extra.problem ? { problem: extra.problem } : {}),
    ...(extra.costNote ? { costNote: extra.costNote } : {}),
    ...(extra.paused ? { paused: extra.paused } : {}),
    ...(extra.nextFireAt !== undefined ? { nextFireAt: extra.nextFireAt } : {}),
    ...(extra.lastRun ? { lastRun: toRunView(extra.lastRun) } : {}),
    ...(extra.recent?.length ? { recentRuns: extra.recent.slice(0, CHART_RUNS).map(toRunView) } : {}),
  };
}

/** The first thing that keeps a valid chore from running: Restricted Mode, then consent, then a stop. */
export function cardProblem(chore: ChoreDefinition, facts: ChoreCardFacts): string | undefined {
  if (!facts.trusted) return 'Restricted Mode: chores do not run until you trust this folder.';
  return facts.consentOf(chore) === 'needed' ? consentProblem : facts.stoppedProblem(chore);
}

/**
 * One valid chore's card, saying what stands in the way ({@link cardProblem}) whether it is the
 * whole list or the patch after a run; `run` is a run that just changed, shown as the last run
 * while the history does not list it yet.
 */
export function choreCard(chore: ChoreDefinition, facts: ChoreCardFacts, run?: ChoreRunRecord): ChoreView {
  const problem = cardProblem(chore, facts);
  const consent = facts.consentOf(chore);
  const paused = facts.paused(chore.id);
  const next = facts.nextFireAt(chore.id);
  const history = facts.history(chore.id);
  const lastRun = history[0] ?? run;
  return toChoreView(chore, {
    ...(facts.skillBodies ? { skillBodies: facts.skillBodies(chore) } : {}),
    ...(facts.mcpServers ? { mcp: facts.mcpServers(chore) } : {}),
    ...(facts.costNote?.() ? { costNote: facts.costNote()! } : {}),
    enabled: facts.trusted && consent === 'given' && !facts.stoppedProblem(chore),
    consent,
    ...(problem ? { problem } : {}),
    ...(paused ? { paused: paused.reason } : {}),
    ...(lastRun ? { lastRun } : {}),
    recent: history,
    ...(next !== undefined ? { nextFireAt: next } : {}),
  });
}

/**
 * Every chore of chores.yaml as a card: the valid ones with the first thing that keeps them from
 * running (Restricted Mode, then consent, then a stop), the invalid ones with their first error.
 */
export function choreCards(loaded: ChoresFileResult, facts: ChoreCardFacts): ChoreView[] {
  const views = loaded.chores.map((chore) => choreCard(chore, facts));
  for (const id of loaded.disabled) {
    const first = loaded.diagnostics.find((d) => d.choreId === id && d.severity === 'error');
    views.push({
      id,
      name: id,
      trigger: '(invalid)',
      enabled: false,
      problem: first ? `line ${first.line}: ${first.message}` : 'invalid; see the problems on .tasklane/chores.yaml',
    });
  }
  return views;
}

/** What a chore and all chores spent today and this month, against the caps that apply. */
export function spendSummary(
  own: { day: number; month: number },
  all: { day: number; month: number },
  limits: ChoreDefinition['spendLimits'],
  caps: ChoreSettings,
): string {
  const cap = (limit: number | undefined) => (limit !== undefined ? ` of $${limit}` : '');
  const workspaceCap = (limit: number) => (limit ? ` of $${limit}` : '');
  return `today $${own.day.toFixed(2)}${cap(limits?.maxCostUsdPerDay)}, this month $${own.month.toFixed(2)}${cap(limits?.maxCostUsdPerMonth)}; all chores today $${all.day.toFixed(2)}${workspaceCap(caps.maxCostUsdPerDay)}, this month $${all.month.toFixed(2)}${workspaceCap(caps.maxCostUsdPerMonth)}`;
}
