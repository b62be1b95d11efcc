/**
 * What a CI fire is told beyond its event payload, for the job's purpose (review ci-2026-12c s8:
 * "the investigator and the reviewer are blind"): a pull request's changed files, and a failed
 * workflow run's failed jobs and steps with a bounded excerpt of each failed job's log. The CLI
 * reads them from the REST API with the agent job's read-only token (cli/fireFacts.ts), not from a
 * deep checkout; this file only bounds them and writes them as text.
 *
 * File names, job and step names and logs are text others wrote (a pull request's author names its
 * files; a test prints what it likes), so each list is one untrusted block (eventText.ts). Only
 * counts and GitHub's own status words are written outside one.
 */
import { maxFieldChars, untrustedBlock } from './eventText';

/** Most changed files read (three pages of GitHub's 100; as many as fit one block are listed); the count says how many there are. */
export const MAX_CHANGED_FILES = 300;
/** Most failed jobs described, and whose logs are read. */
export const MAX_FAILED_JOBS = 3;
/** The end of a failed job's log the model is shown: at most these lines and characters. */
export const LOG_EXCERPT_LINES = 80;
export const LOG_EXCERPT_CHARS = 6_000;

/** A changed file as GitHub lists it (`GET /pulls/{n}/files`). */
export interface ChangedFile {
  path: string;
  /** added, removed, modified, renamed, copied, changed, unchanged */
  status: string;
  additions: number;
  deletions: number;
}

/** A failed job of a workflow run (`GET /actions/runs/{id}/jobs`) and the end of its log. */
export interface FailedJob {
  name: string;
  conclusion: string;
  failedSteps: string[];
  /** The log's last lines, timestamps and colour codes removed; undefined when it could not be read. */
  logExcerpt?: string;
  /** Why the log is missing. */
  logProblem?: string;
}

export interface FireFacts {
  /** A pull request's changed files: the first {@link MAX_CHANGED_FILES}, and how many it changes. */
  changedFiles?: { files: ChangedFile[]; total: number };
  /** A failed run's failed jobs (at most {@link MAX_FAILED_JOBS}), and how many failed. */
  failedJobs?: { jobs: FailedJob[]; total: number };
  /** What could not be read, said to the model so it does not assume there is nothing. */
  problems?: string[];
}

const WORD = /^[a-z_]{1,30}$/;

/** The facts as text after the event's description; empty when there are none. */
export function fireFactsText(facts: FireFacts | undefined): string {
  if (!facts) return '';
  const lines: string[] = [];
  const changed = facts.changedFiles;
  if (changed) {
    // As many whole lines as one block holds (its own cut would end the list mid-name).
    const listed: string[] = [];
    let size = 0;
    for (const f of changed.files) {
      const line = `${WORD.test(f.status) ? f.status : 'changed'} +${f.additions} -${f.deletions} ${f.path}`;
      if (size + line.length + 1 > maxFieldChars) break;
      listed.push(line);
      size += line.length + 1;
    }
    const shown = listed.length < changed.total ? `; the first ${listed.length} are listed` : '';
    lines.push(`The pull request changes ${changed.total} file${changed.total === 1 ? '' : 's'}${shown} (status, +added -deleted lines, path):`);
    if (listed.length) lines.push(untrustedBlock('changed_files', listed.join('\n')));
  }
  const failed = facts.failedJobs;
  if (failed) {
    const more = failed.jobs.length < failed.total ? ` (${failed.total} failed; the first ${failed.jobs.length} are shown)` : '';
    lines.push(failed.total ? `The failed jobs of the run${more}:` : 'GitHub lists no failed job for the run.');
    failed.jobs.forEach((job, i) => {
      const conclusion = WORD.test(job.conclusion) ? job.conclusion : 'failure';
      const steps = job.failedSteps.length ? `failed steps: ${job.failedSteps.join('; ')}` : 'no step failed by name';
      lines.push(`Job ${i + 1} concluded ${conclusion}:`, untrustedBlock(`jobs[${i}]`, `${job.name}\n${steps}`));
      if (job.logExcerpt !== undefined) lines.push(`The end of job ${i + 1}'s log:`, untrustedBlock(`jobs[${i}].log`, job.logExcerpt));
      else if (job.logProblem) lines.push(`Job ${i + 1}'s log could not be read: ${job.logProblem}.`);
    });
  }
  for (const problem of facts.problems ?? []) lines.push(`Not available: ${problem}.`);
  return lines.join('\n');
}

/**
 * The end of a job's log as the model sees it: GitHub's timestamp prefix and ANSI colour codes
 * removed, the last {@link LOG_EXCERPT_LINES} lines, at most {@link LOG_EXCERPT_CHARS} characters.
 * The end, because a failed step stops the job: its error is what was printed last.
 */
export function logExcerpt(log: string): string {
  // eslint-disable-next-line no-control-regex -- ANSI escape sequences are exactly what is removed
  const clean = log.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z /gm, '');
  const lines = clean.trimEnd().split(/\r?\n/);
  let tail = lines.slice(-LOG_EXCERPT_LINES).join('\n');
  if (tail.length > LOG_EXCERPT_CHARS) tail = tail.slice(-LOG_EXCERPT_CHARS);
  const cut = lines.length > LOG_EXCERPT_LINES || tail.length < lines.slice(-LOG_EXCERPT_LINES).join('\n').length;
  return cut ? `[… the start of the log is not shown]\n${tail}` : tail;
}
