/**
 * The normalised shape of a chore that runs on GitHub Actions (chores.yaml `trigger: { github: … }`,
 * `actors:` and `outputs:`). The YAML users write is validated in the chores schema; the workflow
 * generator, the CLI's event reader, its actor gate and its apply step all read this form.
 */

/** The repository events a chore may start from; `pull_request_target` is never one of them. */
export type GithubEventName =
  'issues' | 'issue_comment' | 'pull_request' | 'pull_request_review' | 'workflow_run' | 'repository_dispatch' | 'workflow_dispatch' | 'schedule';

/** A `workflow_dispatch` input, offered in GitHub's Run workflow form; its value reaches the run as data. */
export interface GithubDispatchInput {
  description?: string;
  required: boolean;
  type: 'string' | 'boolean' | 'choice' | 'number';
  options?: string[];
  default?: string;
}

export interface GithubTrigger {
  event: GithubEventName;
  /** The event's activity types (`opened`, `labeled`…); required for `repository_dispatch`. */
  types?: string[];
  /** issues / pull_request: only items carrying one of these labels fire. */
  labels?: string[];
  /** issue_comment: fires on `/tasklane <command>` at the very start of a comment body. */
  command?: string;
  /**
   * issues / pull_request: the label is a command (as gh-aw's label commands): applying it fires the
   * chore once, and the status job removes it so it can be applied again. Implies `types: [labeled]`;
   * the person who applied it is the one the actor gate judges.
   */
  labelCommand?: string;
  /** workflow_run: the workflow names watched (required, with `branches`). */
  workflows?: string[];
  /** workflow_run (required) and pull_request: the branches watched. */
  branches?: string[];
  /** schedule: a 5-field cron and its IANA zone. */
  cron?: string;
  timezone?: string;
  /** workflow_dispatch: the inputs of GitHub's Run workflow form. */
  inputs?: Record<string, GithubDispatchInput>;
  /** pull_request: also fire when new commits are pushed (`synchronize`); off by default. */
  synchronize?: boolean;
  /** pull_request from a fork: skipped unless true, and then read-only with no secrets. */
  forks?: 'skip' | 'read-only';
}

/**
 * Who may fire a chore (an exact list of repository roles, humans only, bots by exact name), and
 * whose asking is trusted: a fire asked for by a role outside `trustedRoles` is tainted
 * (githubTaint.ts). Two lists, so a chore can triage outsiders' issues (`read` in `roles`) without
 * giving outsiders' text the chore's commands.
 */
export interface ActorGate {
  /** Default `['admin', 'maintain', 'write']`; never `*`. */
  roles: Array<'admin' | 'maintain' | 'write' | 'triage' | 'read'>;
  /** Bot logins allowed by exact name (e.g. `dependabot[bot]`); default none. */
  bots: string[];
  /** Roles whose asking is trusted; default {@link DEFAULT_TRUSTED_ROLES}. Absent unless written (the hash stays). */
  trustedRoles?: Array<'admin' | 'maintain' | 'write' | 'triage' | 'read'>;
}

/** Whose asking is trusted when `actors.trustedRoles` is not written: those who can push anyway. */
export const DEFAULT_TRUSTED_ROLES: ReadonlyArray<ActorGate['roles'][number]> = ['admin', 'maintain', 'write'];

/** What the apply job may write for a run; nothing else is written. */
export interface ChoreOutputs {
  /** Labels on the triggering issue or pull request, from this allowlist only. */
  labels?: { allowed: string[]; max: number };
  /** A comment on the triggering item, updated in place on the next fire. */
  comment?: { max: number };
  /** New issues, deduplicated by their hidden marker. */
  issue?: { max: number };
  /** The run's patch as a pull request; always a draft. */
  pullRequest?: { draft: true; paths?: string[] };
  /**
   * The run's patch as a commit on the triggering pull request's branch, when that branch is in
   * this repository (a fork's is refused): `/tasklane fix` on a pull request fixes it in place
   * instead of opening a second one. `paths` as for pullRequest.
   */
  pushToPullRequest?: { paths?: string[] };
  /** A review comment on the triggering pull request (never an approval). */
  review?: { max: number };
}

export const DEFAULT_ACTOR_GATE: ActorGate = { roles: ['admin', 'maintain', 'write'], bots: [] };
