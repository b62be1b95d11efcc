/**
 * The command-line glue of chores on CI: `chores run` for a github chore (or with --event/--out)
 * and `chores apply --from DIR`. Kept apart from main.ts so the argument parsing there stays one
 * switch; what a fire does is in ciRun.ts and applyOutputs.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendEscalation } from '../core/chores/escalation';
import type { ChoreDefinition } from '../core/chores/types';
import type { Logger } from '../core/ports';
import type { Redactor } from '../core/security/redact';
import { forCiLog } from '../core/security/surfaceText';
import { applyOutputs, safeText } from './applyOutputs';
import { checkName, checkReport } from './checkReport';
import { baseManifest, githubApiFromEnv, itemKey, runOnCi } from './ciRun';
import type { GithubApi } from './githubApi';
import { upsertStatus } from './statusComment';
import type { CiRunInput } from './ciRun';
import { secretsFromEnv, UsageError } from './environment';
import { writeLedger } from './fireLedger';
import { eventItem, pullRequestHeadSha } from '../core/chores/githubEvent';
import { readGithubEvent } from './eventFile';
import { manifestFile, patchFile, readManifest } from './resultManifest';
import type { ResultManifest } from './resultManifest';
import { actionsRunUrl } from './cliEngine';
import { writeRunOut } from './runOut';

interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** `chores run <id>` on CI: exit 0 when the run succeeded, had nothing to change or the fire was skipped, else 1. */
export async function runCiFire(input: {
  chore: ChoreDefinition;
  /** The chore's definition hash (skill bodies included), as `--expect-hash` and the workflow know it. */
  definitionHash: string;
  values: { event?: string; out?: string; json?: boolean; resume?: string };
  io: Io;
  redactor: Redactor;
  logger: Logger;
  run: CiRunInput['run'];
}): Promise<number> {
  const { io, redactor, values } = input;
  // The gate's token is for the gate and the budget only: never printed, never in the manifest.
  redactor.addSecret(io.env.TASKLANE_GATE_TOKEN);
  redactor.addSecret(io.env.GITHUB_TOKEN);
  const eventFile = values.event !== undefined ? path.resolve(io.cwd, values.event) : io.env.GITHUB_EVENT_PATH || undefined;
  const secrets = secretsFromEnv(io.env);
  const escalateStop = async (chore: ChoreDefinition, reason: string, spent?: ResultManifest['usage']) => {
    const now = new Date().toISOString();
    const usage = {
      iterations: spent?.iterations ?? 0,
      elapsedMs: 0,
      inputTokens: spent?.inputTokens ?? 0,
      outputTokens: spent?.outputTokens ?? 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: spent?.costUsd ?? 0,
    };
    const payload = {
      type: 'tasklane.chore_escalation' as const,
      version: 1 as const,
      chore: { id: chore.id, name: chore.name },
      runId: `ci-${io.env.GITHUB_RUN_ID ?? 'local'}`,
      status: 'budget_exhausted' as const,
      reason: redactor.redact(reason),
      usage,
      lastSteps: [],
      startedAt: now,
      endedAt: now,
      ...(io.env.GITHUB_REPOSITORY ? { workspace: io.env.GITHUB_REPOSITORY } : {}),
    };
    await sendEscalation(chore.escalate!, payload, { secrets: { getSecret: async (name) => secrets(name) }, logger: input.logger });
  };
  const { manifest, patch } = await runOnCi({
    chore: input.chore,
    definitionHash: input.definitionHash,
    eventFile,
    env: io.env,
    now: () => new Date(),
    run: input.run,
    ...(values.resume !== undefined ? { resume: values.resume } : {}),
    escalateStop,
    // `--out` is how the fire knows it is the generated workflow's agent job (ciRun.ts inWorkflow).
    inWorkflow: values.out !== undefined,
    // The account of a run cut short is in --out before the model is called (ciRun.ts).
    ...(values.out !== undefined
      ? { started: (m: ResultManifest) => writeRunOut(path.resolve(io.cwd, values.out!), JSON.parse(redactor.redact(JSON.stringify(m))) as unknown, '') }
      : {}),
  });
  // A run paused at budget waits for a maintainer (ciPause.ts): a chore that escalates its failures
  // tells its channels too, with exactly how to continue it (the gesture, the run id), since a
  // pause is no failure and nothing else reaches a person about a fire on no item.
  if (manifest.paused && input.chore.onFailure === 'escalate' && input.chore.escalate)
    await escalateStop(input.chore, `Paused at budget: ${manifest.paused.message}. ${manifest.paused.resume}`, manifest.usage).catch((error: unknown) =>
      input.logger.warn('CHORE', `the pause of ${input.chore.id} could not be escalated: ${error instanceof Error ? error.message : String(error)}`),
    );
  const safe = JSON.parse(redactor.redact(JSON.stringify(manifest))) as typeof manifest;
  // Written through runOut.ts, which refuses a symbolic link for the folder and both files.
  if (values.out !== undefined) writeRunOut(path.resolve(io.cwd, values.out), safe, patch === undefined ? '' : redactor.redact(patch));
  io.err(
    redactor.redact(
      `chore ${manifest.choreId}: ${manifest.paused ? 'paused at budget' : manifest.status}${manifest.reason ? `: ${forCiLog(manifest.reason)}` : ''}${manifest.tainted ? ' (tainted)' : ''}; ${manifest.changedFiles.length} file(s) in the patch${values.out !== undefined ? `; wrote ${manifestFile}${patch ? ` and ${patchFile}` : ''}` : ''}\n`,
    ),
  );
  if (values.json) io.out(`${JSON.stringify(safe)}\n`);
  // Paused at budget is no failure (ciPause.ts): the agent job stays green, the status says paused.
  return manifest.status === 'succeeded' || manifest.status === 'nothing_to_change' || manifest.status === 'skipped' || manifest.paused ? 0 : 1;
}

/** `chores apply --from DIR`: 0 all applied or nothing proposed, 1 something refused, 2 bad input. */
export async function applyCommand(input: {
  from: string;
  event?: string;
  /** `--chore ID`: the chore the job applies for, to report a fire whose agent job left no result. */
  choreId?: string;
  chores: ChoreDefinition[];
  /** The committed chore's definition hash, computed as for `--expect-hash` (skill bodies included). */
  hashOf: (chore: ChoreDefinition) => Promise<string>;
  io: Io;
  redactor: Redactor;
}): Promise<number> {
  const { io, redactor } = input;
  redactor.addSecret(io.env.GITHUB_TOKEN);
  const repo = io.env.GITHUB_REPOSITORY;
  const agentResult = io.env.TASKLANE_AGENT_RESULT?.trim();
  // The agent job was cancelled (a newer fire replaced it) or died before it wrote a result: the
  // fire still gets its record on the item, the pull request's check and the step summary.
  if (!fs.existsSync(input.from) && input.choreId && agentResult && agentResult !== 'success') {
    if (!repo) throw new UsageError('GITHUB_REPOSITORY is not set: the apply step writes to that repository (owner/name).');
    return reportFire(input, { manifest: endedManifest(input.choreId, agentResult), patch: undefined }, githubApiFromEnv(io.env, io.env.GITHUB_TOKEN, repo)!);
  }
  if (!fs.existsSync(input.from)) throw new UsageError(`--from ${input.from} does not exist; pass the folder chores run --out wrote.`);
  let read;
  try {
    read = readManifest(input.from);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (!repo) throw new UsageError('GITHUB_REPOSITORY is not set: the apply step writes to that repository (owner/name).');
  return reportFire(input, read, githubApiFromEnv(io.env, io.env.GITHUB_TOKEN, repo)!);
}

/** A fire's account when its agent job left no manifest: nothing ran that this job can see, nothing was spent that it can count. */
function endedManifest(choreId: string, agentResult: string): ResultManifest {
  const cancelled = agentResult === 'cancelled';
  return {
    ...baseManifest({ id: choreId }, '', undefined, null),
    status: cancelled ? 'cancelled' : 'failed',
    reason: cancelled
      ? 'the agent job was cancelled before it wrote a result (a newer fire of the chore replaced it, or the run was cancelled)'
      : `the agent job ended ${agentResult} before it wrote a result; its log on the run page says why`,
  };
}

/**
 * Applies a result and reports the fire, in this order: the outputs, the fire's ledger record, the
 * check run (on a pull request's head only: elsewhere it would sit on the default branch, where
 * nobody looking at the item sees it and a refusal would paint it), the status comment on the item
 * (after everything it mentions), and the step summary.
 */
async function reportFire(
  input: Parameters<typeof applyCommand>[0],
  read: { manifest: ResultManifest; patch: string | undefined },
  api: GithubApi,
): Promise<number> {
  const { io, redactor } = input;
  const { manifest, patch } = read;
  const eventFile = input.event ?? (io.env.GITHUB_EVENT_PATH || undefined);
  const event = eventFile ? readGithubEvent(eventFile, io.env.GITHUB_EVENT_NAME) : undefined;
  const chore = input.chores.find((c) => c.id === manifest.choreId);
  const url = actionsRunUrl(io.env);
  // An App or fine-grained token the repository set for pull requests (draftPull.ts): a pull
  // request the workflow's own token opens starts no CI. Empty when the secret is not set.
  const prToken = io.env.TASKLANE_PR_TOKEN?.trim();
  redactor.addSecret(prToken);
  const pullApi = prToken ? githubApiFromEnv(io.env, prToken, api.repo) : undefined;
  const report = await applyOutputs({
    manifest,
    patch,
    chore,
    committedHash: chore ? await input.hashOf(chore) : undefined,
    event,
    api,
    ...(pullApi ? { pullApi } : {}),
    ...(url ? { runUrl: url } : {}),
  });
  const now = new Date();
  const item = event ? eventItem(event, api.repo) : manifest.item;
  const onPullRequest = item?.kind === 'pull_request';
  const check = checkReport(manifest, report, chore, onPullRequest);
  const refusedOutputs = report.refused.length;
  // The fire's record in the ledger the next fire counts (fireLedger.ts): every fire of a github
  // chore that was a fire at all, stopped ones included (they count as no cost and no fire), and
  // every fire of a cron chore (no event in its manifest, no item: the apply job runs only in the workflow).
  if (check && (manifest.event || chore?.trigger.kind === 'cron')) {
    try {
      const stopped =
        manifest.skip === 'budget' || manifest.skip === 'gate' || manifest.skip === 'resume' || manifest.skip === 'loop' ? manifest.skip : undefined;
      // A run parked with its store: the record binds a later `/tasklane continue` to that store (ciResume.ts).
      const runId = io.env.GITHUB_RUN_ID;
      const paused = manifest.paused?.storeHash && runId && /^\d+$/.test(runId) ? { run: runId, store: manifest.paused.storeHash } : undefined;
      const record = {
        chore: manifest.choreId,
        item: itemKey(item),
        costUsd: manifest.usage.costUsd,
        at: now.toISOString(),
        ...(stopped ? { stopped } : {}),
        ...(paused ? { paused } : {}),
      };
      await writeLedger(api, record, url);
    } catch (error) {
      report.refused.push(`fire record: GitHub refused it (${error instanceof Error ? error.message : String(error)}; the next fire does not count this one)`);
    }
  }
  const sha = event && onPullRequest ? pullRequestHeadSha(event) : undefined;
  if (check && sha) {
    try {
      await api.createCheckRun({ name: checkName(manifest.choreId), head_sha: sha, ...check, ...(url ? { details_url: url } : {}) });
      report.applied.push(`check run "${checkName(manifest.choreId)}": ${check.conclusion}`);
    } catch (error) {
      report.refused.push(`check run: GitHub refused it (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  if (check && item?.number != null && item.repo === api.repo) {
    const safe = event ? safeText(event) : (text: string) => text;
    const facts = { choreId: manifest.choreId, title: check.title, lines: check.lines.map((l) => redactor.redact(safe(l))), ...(url ? { runUrl: url } : {}) };
    try {
      report.applied.push(await upsertStatus(api, item.number, facts));
    } catch (error) {
      report.refused.push(`status comment: GitHub refused it (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  // The same summary on the workflow run's page, for every fire (an event that did not fire the
  // chore too: it says why, where the person who expected a fire looks).
  if (io.env.GITHUB_STEP_SUMMARY) {
    const text = check ? `**${check.title}**\n\n${check.lines.join('\n')}` : `Not a fire: ${manifest.reason ?? manifest.skip ?? 'skipped'}`;
    fs.appendFileSync(io.env.GITHUB_STEP_SUMMARY, redactor.redact(`## ${checkName(manifest.choreId)}\n\n${text}\n`));
  }
  const lines = [
    `chore ${manifest.choreId}: ${manifest.paused ? 'paused at budget' : manifest.status}${manifest.reason ? `: ${manifest.reason}` : ''}`,
    ...(report.proposed === 0 ? ['the run proposed nothing to write'] : []),
    ...report.applied.map((a) => `applied: ${a}`),
    ...report.refused.map((r) => `refused: ${r}`),
  ];
  // Reasons and refused values are model text: one line each, escapes written out, never a `::`
  // workflow command (review 2026-12c finding 10).
  io.out(redactor.redact(`${lines.map(forCiLog).join('\n')}\n`));
  // A refused output fails the job with its check: off a pull request a chore's own refusal is
  // neutral, and so is the job (its run is on the default branch). A record that could not be written fails it.
  const failing = check !== undefined && (check.conclusion === 'failure' || check.conclusion === 'action_required');
  return report.refused.length > refusedOutputs || (refusedOutputs > 0 && failing) ? 1 : 0;
}
