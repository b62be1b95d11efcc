/**
 * One fire of a chore on CI (`chores run <id> --event FILE --out DIR`): the event decides whether
 * it fires, Tasklane's own events are ignored, the actor gate and the budgets across fires run
 * before any model call, a tainted fire is narrowed, and what happened is written as
 * `tasklane-result.json` (+ `tasklane.patch`) for the apply job. Nothing here writes to GitHub.
 */
import { compileExpression, evaluateSuccess } from '../core/chores/expressions';
import { DEFAULT_ACTOR_GATE } from '../core/chores/githubTypes';
import type { ChoreStep } from '../core/chores/runLog';
import type { ChoreDefinition } from '../core/chores/types';
import { checkActorGate } from './actorGate';
import { budgetAcrossFires, readsEarlierFires } from './fireBudget';
import { readFireFacts } from './fireFacts';
import { readLedger } from './fireLedger';
import { fireLoop } from './fireLoop';
import type { FireFacts } from '../core/chores/fireFacts';
import { GithubApi } from './githubApi';
import { eventItem, isForkPullRequest, matchEvent, selfTriggered } from '../core/chores/githubEvent';
import { readGithubEvent } from './eventFile';
import type { EventItem, GithubEvent } from '../core/chores/githubEvent';
import { pausedState } from './ciPause';
import { continueGesture, cronContinue, dispatchedContinue, findPausedFire, misdirectedContinue, notContinue, storeMismatch } from './ciResume';
import { proposedOutputs } from './resultManifest';
import { githubFireText, outputsInstruction, untaintedKinds } from '../core/chores/githubFire';
import type { ResultManifest } from './resultManifest';
import type { CliRunResult } from './runChore';

type Env = Readonly<Record<string, string | undefined>>;

export interface CiRunInput {
  chore: ChoreDefinition;
  /** The chore's definition hash as the workflow pins it (`--expect-hash`), written into the manifest. */
  definitionHash: string;
  /** The event file (`--event`, else `$GITHUB_EVENT_PATH`); undefined runs the chore by hand, ungated. */
  eventFile: string | undefined;
  env: Env;
  now: () => Date;
  /** Tells the chore's escalation channels about a budget stop (once per day: the first stop). */
  escalateStop?: (chore: ChoreDefinition, reason: string) => Promise<void>;
  /** Given the account of a fire that starts its run, before the model is called (unfinishedManifest). */
  started?: (manifest: ResultManifest) => void;
  /** The paused run's store to continue (`--resume`, ciResume.ts): the event must be a `/tasklane continue` or a Run workflow naming the paused run. */
  resume?: string;
  /**
   * The fire is the generated workflow's agent job (`--out`, which its run step always passes): a
   * cron chore then reads the fire ledger as a github chore does. Without it a cron chore is run by
   * hand (no workflow, no gate token) and counts no earlier fires, as before.
   */
  inWorkflow?: boolean;
  /** Runs the (possibly narrowed) chore through the engine: runChoreOnce. */
  run: (chore: ChoreDefinition) => Promise<{ result: CliRunResult; patch: string; output?: Record<string, unknown>; trace: ChoreStep[] }>;
}

/** The GitHub API a CI step may use, or undefined without a repository to point it at. */
export function githubApiFromEnv(env: Env, token: string | undefined, repo?: string): GithubApi | undefined {
  const name = env.GITHUB_REPOSITORY ?? repo;
  if (!name) return undefined;
  return new GithubApi({ baseUrl: env.GITHUB_API_URL || 'https://api.github.com', repo: name, token });
}

export function itemKey(item: EventItem | null): string | null {
  return item && item.number !== null ? `${item.repo}#${item.number}` : null;
}

/** Runs the fire, or records why it is skipped; the caller writes the manifest (redacted) to `--out`. */
export async function runOnCi(input: CiRunInput): Promise<{ manifest: ResultManifest; patch: string | undefined }> {
  const { chore, env } = input;
  const event = input.eventFile && chore.trigger.kind === 'github' ? readGithubEvent(input.eventFile, env.GITHUB_EVENT_NAME) : undefined;
  const item = event ? eventItem(event, env.GITHUB_REPOSITORY) : null;
  const base = baseManifest(chore, input.definitionHash, event, item);
  const finish = (manifest: ResultManifest, patch?: string) => ({ manifest, patch });
  const skip = (kind: NonNullable<ResultManifest['skip']>, reason: string) => finish({ ...base, status: 'skipped', skip: kind, reason });
  /** The budgets across fires (fireBudget.ts), read before any model call; the day's first stop is escalated. */
  const capsAcrossFires = async (item: EventItem | null) => {
    const stop = await crossFireBudget(chore, item, env, input.now());
    if (stop.stop && stop.firstStop && chore.escalate) await input.escalateStop?.(chore, stop.stop);
    return stop;
  };

  let narrowed = chore;
  // A cron chore in the workflow (its agent job: `--out`) is continued by Run workflow like a
  // schedule chore (ciResume.ts `cronContinue`); its event is read only for that, so its fire
  // stays one with no event, as before (no event text in the prompt, no item).
  const cronOnCi = chore.trigger.kind === 'cron' && input.inWorkflow === true;
  if (input.resume !== undefined && !cronOnCi && (!event || chore.trigger.kind !== 'github'))
    return skip('resume', 'continuing a paused run on CI needs the /tasklane continue comment that asks for it (--event)');
  if (event && chore.trigger.kind === 'github') {
    const own = selfTriggered(event);
    if (own) return skip('self', `Tasklane's own event: ${own}`);
    const gateApi = env.TASKLANE_GATE_TOKEN ? githubApiFromEnv(env, env.TASKLANE_GATE_TOKEN, item?.repo) : undefined;
    let paused: { run: string; store: string } | undefined;
    // A Run workflow's `continue` input names the paused run of a schedule or dispatch chore.
    const named = continueGesture(chore) === 'dispatch' ? dispatchedContinue(event) || undefined : undefined;
    if (input.resume !== undefined) {
      const not = notContinue(event, chore);
      if (not) return skip('event', `the event does not continue this chore: ${not}`);
      const found = await findPausedFire(chore.id, itemKey(item), gateApi, named);
      if ('skip' in found) return skip(found.skip, found.reason);
      paused = found.paused;
    } else {
      const match = matchEvent(chore.trigger.github, event, chore.id);
      if (!match.fire) return skip('event', `the event does not fire this chore: ${match.reason}`);
      // Asked to continue, and nothing was downloaded to continue from: never a new run from the
      // first step in its place. The ledger is read again for the reason (the job log has it too).
      const misdirected = misdirectedContinue(event, chore);
      if (misdirected) return skip('resume', misdirected);
      if (named !== undefined) {
        const found = await findPausedFire(chore.id, itemKey(item), gateApi, named);
        return skip(
          'resume',
          'skip' in found ? found.reason : `run ${named}'s store was not downloaded (its artifact is gone, or expired after 30 days); nothing ran`,
        );
      }
      const loop = await fireLoop(chore, event, gateApi);
      if (loop) return skip('loop', loop);
    }
    // A schedule chore run by hand (Run workflow): GitHub lets only people with write access
    // dispatch a workflow; it runs as its schedule would. Any other chore run by hand, and any
    // continue, has its gate judge the person who dispatched it (the sender), so a chore limited
    // to admins stays so on Run workflow and a continue is never an outsider's.
    const byHand = chore.trigger.github.event === 'schedule' && event.name === 'workflow_dispatch' && paused === undefined;
    const verdict = byHand
      ? ({ allowed: true, actor: 'workflow_dispatch', role: 'write', tainted: false, taintReasons: [] } as const)
      : await checkActorGate(chore.actors ?? DEFAULT_ACTOR_GATE, event, gateApi);
    if (!verdict.allowed) return skip('gate', verdict.reason);
    const taintReasons = [...verdict.taintReasons];
    if (isForkPullRequest(event)) taintReasons.push('the pull request comes from a fork (forks: read-only)');
    const fork = await commentedFork(chore, event, item, gateApi);
    if (fork) taintReasons.push(fork);
    base.tainted = taintReasons.length > 0;
    base.taintReasons = taintReasons;
    const stop = await capsAcrossFires(item);
    if (stop.stop) return skip('budget', stop.stop);
    // Checked after the gate and the caps: an outsider's or a capped continue says so, whatever the store.
    const mismatch = paused && storeMismatch(input.resume!, paused);
    if (mismatch) return skip('resume', mismatch);
    // Read with the gate token (read-only, never given to the run): what the job's purpose needs.
    const facts = await readFireFacts(event, item, gateApi);
    narrowed = ciChore(chore, event, item!, base.tainted, stop.costLeftToday, facts);
  }
  // A cron chore in the workflow holds to the budgets across fires (its record has no item), read
  // before any model call and failing closed like a github chore's; the run's cost cap is what
  // the day's cap left. A continue is checked first and its store after the caps, as above.
  if (cronOnCi) {
    const dispatched = input.eventFile && (input.resume !== undefined || env.GITHUB_EVENT_NAME === 'workflow_dispatch');
    const cronEvent = dispatched ? readGithubEvent(input.eventFile!, env.GITHUB_EVENT_NAME) : undefined;
    const gateApi = env.TASKLANE_GATE_TOKEN ? githubApiFromEnv(env, env.TASKLANE_GATE_TOKEN) : undefined;
    const continued = await cronContinue(chore, cronEvent, input.resume, gateApi);
    if ('skip' in continued) return skip(continued.skip, continued.reason);
    const stop = await capsAcrossFires(null);
    if (stop.stop) return skip('budget', stop.stop);
    const mismatch = continued.paused && storeMismatch(input.resume!, continued.paused);
    if (mismatch) return skip('resume', mismatch);
    narrowed = { ...chore, budget: budgetToday(chore, stop.costLeftToday) };
  }
  // A cron chore on CI is told the outputs it may propose too (it has no event to describe).
  if (!event && chore.outputs) narrowed = { ...narrowed, prompt: `${chore.prompt.trim()}\n\n${outputsInstruction(chore.outputs)}` };
  if (event || cronOnCi) input.started?.(unfinishedManifest(base, narrowed));
  const { result, patch, output, trace } = await input.run(narrowed);
  const outputs = proposedOutputs(output);
  const manifest: ResultManifest = {
    ...base,
    status: result.status === 'running' ? 'failed' : result.status,
    reason: result.reason,
    usage: {
      iterations: result.usage.iterations,
      inputTokens: result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens,
      outputTokens: result.usage.outputTokens,
      costUsd: result.usage.costUsd,
      costEstimated: result.usage.costEstimated === true,
    },
    verdict: await verdictOf(chore, output),
    commands: commandsOf(trace),
    // A tainted fire may write the low-risk kinds only. What it proposed beyond them stays in the
    // manifest, so the apply job refuses it by name (the check and the comment say so) instead
    // of it vanishing; the patch itself is withheld below.
    outputs,
    changedFiles: base.tainted ? [] : result.changedFiles,
    paused:
      pausedState(
        result.status,
        result.reason,
        chore,
        narrowed,
        trace.map((s) => `${s.name} ${s.status}`),
        result.parked?.storeHash,
        env.GITHUB_RUN_ID,
        event?.name === 'workflow_dispatch',
      ) ?? null,
  };
  return finish(manifest, base.tainted || !patch ? undefined : patch);
}

/**
 * The account of a fire whose run started and never ended, written to `--out` before the model is
 * called and replaced when the run ends. A job cancelled mid-run (concurrency: replace, a person,
 * a timeout) still uploads it (its upload step runs always()), so the apply job reports the fire
 * and records it in the fire ledger at the most it could have spent, its cost cap: a run the
 * ledger never heard of would spend outside the caps across fires.
 */
function unfinishedManifest(base: ResultManifest, chore: ChoreDefinition): ResultManifest {
  const cap = chore.budget.maxCostUsd;
  return {
    ...base,
    status: 'cancelled',
    reason: `the run started and did not finish (its job was cancelled by a newer fire or a person, timed out or crashed); it is counted at its cost cap, $${cap.toFixed(2)}, the most it could have spent`,
    usage: { ...base.usage, costUsd: cap },
  };
}

/** A manifest of a fire that ran nothing yet: no usage, no outputs (`event` undefined: no event). */
export function baseManifest(
  chore: Pick<ChoreDefinition, 'id'>,
  definitionHash: string,
  event: GithubEvent | undefined,
  item: EventItem | null,
): ResultManifest {
  return {
    version: 1,
    choreId: chore.id,
    definitionHash,
    status: 'skipped',
    reason: null,
    skip: null,
    usage: { iterations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, costEstimated: false },
    verdict: null,
    commands: { run: [], refused: [] },
    tainted: false,
    taintReasons: [],
    item,
    event: event ? { name: event.name, action: event.action ?? null } : null,
    outputs: { labels: [], comment: null, issues: [], review: null, pullRequest: null, pushToPullRequest: null },
    changedFiles: [],
    paused: null,
  };
}

/**
 * The chore as this fire runs it: the event as data after the prompt, the outputs it may
 * propose, and, when tainted, no declared commands and no MCP servers (network) at all.
 */
export function ciChore(
  chore: ChoreDefinition,
  event: GithubEvent,
  item: EventItem,
  tainted: boolean,
  costLeftToday?: number,
  facts?: FireFacts,
): ChoreDefinition {
  // A tainted fire is told only the low-risk kinds; its task_end is still checked against the
  // chore's own outputs, so a kind taint removes reaches the apply job and is refused there by name.
  const offered = tainted && chore.outputs ? untaintedKinds(chore.outputs) : chore.outputs;
  const prompt = `${chore.prompt.trim()}\n\n${githubFireText(event, item, offered, tainted, facts)}`;
  const { commands: _commands, ...rest } = chore;
  return {
    ...(tainted ? rest : chore),
    prompt,
    actionSets: tainted ? chore.actionSets.filter((s) => s !== 'commands' && !s.startsWith('mcp:')) : chore.actionSets,
    ...(chore.outputs ? { outputs: chore.outputs } : {}),
    budget: budgetToday(chore, costLeftToday),
  };
}

/** The fire's budget: its cost cap lowered to what the day's cap across fires left, when it is lower. */
function budgetToday(chore: ChoreDefinition, costLeftToday: number | undefined): ChoreDefinition['budget'] {
  return costLeftToday !== undefined ? { ...chore.budget, maxCostUsd: Math.max(0, Math.min(chore.budget.maxCostUsd, costLeftToday)) } : chore.budget;
}

async function crossFireBudget(
  chore: ChoreDefinition,
  item: EventItem | null,
  env: Env,
  now: Date,
): Promise<{ stop?: string; costLeftToday?: number; firstStop?: boolean }> {
  if (!readsEarlierFires(chore)) return {};
  const api = githubApiFromEnv(env, env.TASKLANE_GATE_TOKEN, item?.repo);
  // Fail closed: a cap that cannot be counted is a cap reached.
  if (!api || !env.TASKLANE_GATE_TOKEN)
    return { stop: 'budget across fires: the fire ledger cannot be read (no repository or no TASKLANE_GATE_TOKEN to read it with)' };
  try {
    return budgetAcrossFires(chore, await readLedger(api, chore.id), itemKey(item), now);
  } catch (error) {
    return { stop: `budget across fires: the fire ledger could not be read whole (${error instanceof Error ? error.message : String(error)})` };
  }
}

/**
 * For a chore that commits to the pull request it is asked on (`pushToPullRequest`): whether that
 * pull request is a fork's, which a comment's payload does not say. Its code is checked out for
 * the run (workflowJobs.ts), so a fork's runs narrowed as any fork's (no commands, no MCP, no
 * patch); a pull request GitHub will not describe is treated as a fork's (fail closed).
 */
async function commentedFork(chore: ChoreDefinition, event: GithubEvent, item: EventItem | null, api: GithubApi | undefined): Promise<string | undefined> {
  if (!chore.outputs?.pushToPullRequest || event.name !== 'issue_comment' || item?.kind !== 'pull_request' || item.number === null) return undefined;
  const unknown = (why: string) => `whether the pull request is a fork's could not be read (${why}), so it runs as a fork's (forks: read-only)`;
  if (!api) return unknown('no TASKLANE_GATE_TOKEN');
  try {
    const repo = (await api.pull(item.number)).head.repo?.full_name;
    return repo === api.repo ? undefined : `the pull request comes from ${repo ? `the fork ${repo}` : 'a deleted fork'} (forks: read-only)`;
  } catch (error) {
    return unknown(error instanceof Error ? error.message : String(error));
  }
}

async function verdictOf(chore: ChoreDefinition, output: Record<string, unknown> | undefined): Promise<ResultManifest['verdict']> {
  if (!chore.successWhen || output === undefined) return null;
  const verdict = await evaluateSuccess(compileExpression(chore.successWhen), output);
  return { expression: chore.successWhen, met: verdict.result === 'true' };
}

/** Commands the run ran and those refused (an error step: refused, not offered or failed to start), from its trace. */
function commandsOf(trace: readonly ChoreStep[]): ResultManifest['commands'] {
  const run: string[] = [];
  const refused: string[] = [];
  for (const step of trace) {
    if (step.name !== 'run_command' && step.name !== 'run_task') continue;
    let command = `${step.name} (${step.result.split('\n')[0].slice(0, 120)})`;
    try {
      const args = JSON.parse(step.args) as { command?: unknown; name?: unknown };
      if (typeof args.command === 'string' || typeof args.name === 'string') command = String(args.command ?? args.name);
    } catch {
      // not JSON (a call that never ran): named by its result
    }
    (step.status === 'ok' ? run : refused).push(command);
  }
  return { run, refused };
}
