/**
 * Reads what a fire is told beyond its payload (core/chores/fireFacts.ts) from the REST API, with
 * the agent job's read-only token: a pull request's changed files (`pull-requests: read`) and a
 * failed workflow run's jobs and the end of each failed job's log (`actions: read`), the scopes the
 * generated agent job holds for such chores (workflowJobs.ts). Bounded: at most three pages of
 * files, the first failed jobs and the end of their logs.
 *
 * Context, not a gate: what cannot be read is said to the model as missing and the fire goes on
 * (a chore that needs the list can stop on its own), unlike the budgets, which fail closed.
 */
import { LOG_EXCERPT_CHARS, logExcerpt, MAX_CHANGED_FILES, MAX_FAILED_JOBS } from '../core/chores/fireFacts';
import type { ChangedFile, FailedJob, FireFacts } from '../core/chores/fireFacts';
import type { EventItem, GithubEvent } from '../core/chores/githubEvent';
import type { GithubApi } from './githubApi';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const count = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 200);

/** The facts for this fire, or undefined when it is about neither a pull request nor a failed run. */
export async function readFireFacts(event: GithubEvent, item: EventItem | null, api: GithubApi | undefined): Promise<FireFacts | undefined> {
  const pullRequest = item?.kind === 'pull_request' && item.number !== null && item.repo === api?.repo ? item.number : undefined;
  const runId = event.name === 'workflow_run' ? obj(event.payload.workflow_run).id : undefined;
  if (pullRequest === undefined && typeof runId !== 'number') return undefined;
  if (!api) return { problems: ['the changed files and failed jobs (no token to read them with: TASKLANE_GATE_TOKEN is not set)'] };
  const facts: FireFacts = {};
  const problems: string[] = [];
  if (pullRequest !== undefined)
    try {
      facts.changedFiles = await changedFiles(api, pullRequest, count(obj(event.payload.pull_request).changed_files));
    } catch (error) {
      problems.push(`the pull request's changed files (${reason(error)})`);
    }
  if (typeof runId === 'number')
    try {
      facts.failedJobs = await failedJobs(api, runId);
    } catch (error) {
      problems.push(`the failed run's jobs (${reason(error)})`);
    }
  return problems.length ? { ...facts, problems } : facts;
}

async function changedFiles(api: GithubApi, pull: number, payloadTotal: number): Promise<{ files: ChangedFile[]; total: number }> {
  const files: ChangedFile[] = [];
  for (let page = 1; files.length < MAX_CHANGED_FILES; page++) {
    const batch = await api.request<unknown[]>('GET', `/repos/${api.repo}/pulls/${pull}/files?per_page=100&page=${page}`);
    for (const f of batch.map(obj))
      files.push({ path: str(f.filename), status: str(f.status, 'changed'), additions: count(f.additions), deletions: count(f.deletions) });
    if (batch.length < 100) break;
  }
  const shown = files.slice(0, MAX_CHANGED_FILES);
  // The payload's changed_files counts them all (a comment's payload has none: then what was read).
  return { files: shown, total: Math.max(payloadTotal, files.length) };
}

async function failedJobs(api: GithubApi, runId: number): Promise<{ jobs: FailedJob[]; total: number }> {
  // filter=latest: a re-run's jobs, not the attempts before it. 100 jobs is one page; a run with
  // more has more to show than fits here anyway.
  const answer = await api.request<{ jobs?: unknown[] }>('GET', `/repos/${api.repo}/actions/runs/${runId}/jobs?filter=latest&per_page=100`);
  const failed = (answer.jobs ?? []).map(obj).filter((j) => j.conclusion === 'failure' || j.conclusion === 'timed_out');
  const jobs: FailedJob[] = [];
  for (const job of failed.slice(0, MAX_FAILED_JOBS)) {
    const steps = (Array.isArray(job.steps) ? job.steps : []).map(obj);
    const described: FailedJob = {
      name: str(job.name, 'unnamed job'),
      conclusion: str(job.conclusion),
      failedSteps: steps.filter((s) => s.conclusion === 'failure' || s.conclusion === 'timed_out').map((s) => str(s.name, `step ${count(s.number)}`)),
    };
    try {
      const log = await api.text(`/repos/${api.repo}/actions/jobs/${count(job.id)}/logs`);
      // Only the end is kept: a log of many megabytes is read once and cut here.
      described.logExcerpt = logExcerpt(log.length > LOG_EXCERPT_CHARS * 20 ? log.slice(-LOG_EXCERPT_CHARS * 20) : log);
    } catch (error) {
      described.logProblem = reason(error);
    }
    jobs.push(described);
  }
  return { jobs, total: failed.length };
}
