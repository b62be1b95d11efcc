import { parse as parseYaml } from 'yaml';

/**
 * The audits `zizmor` makes of a GitHub workflow, written as plain checks over the parsed YAML, since
 * zizmor itself (a Rust binary) is not installable where the tests run. Each audit returns findings
 * (`job: what is wrong`); an empty list passes. They are stricter than zizmor where the generator can
 * afford it (any expression in a `run:` is a finding, not only attacker-controlled ones), so a change to
 * the generator that loosens one of these properties fails a test rather than waiting for a scanner.
 */
export type Audit = (workflow: LooseWorkflow) => string[];

type Step = { uses?: string; run?: string; if?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
type Job = { permissions?: unknown; steps?: Step[]; uses?: string; secrets?: unknown };
export type LooseWorkflow = { on?: unknown; permissions?: unknown; jobs?: Record<string, Job> };

export const parseWorkflow = (text: string): LooseWorkflow => parseYaml(text) as LooseWorkflow;

const jobs = (w: LooseWorkflow): Array<[string, Job]> => Object.entries(w.jobs ?? {});
const steps = (w: LooseWorkflow): Array<[string, Step]> => jobs(w).flatMap(([id, job]) => (job.steps ?? []).map((s): [string, Step] => [id, s]));
const action = (step: Step): string => step.uses?.replace(/@.*/, '') ?? '';
const triggers = (w: LooseWorkflow): string[] =>
  typeof w.on === 'string' ? [w.on] : Array.isArray(w.on) ? (w.on as string[]) : Object.keys((w.on as Record<string, unknown>) ?? {});

/** template-injection: no `${{ }}` in a `run:` or a github-script `script:`; values reach scripts through env. */
export const templateInjection: Audit = (w) =>
  steps(w)
    .filter(([, s]) => /\$\{\{/.test(s.run ?? '') || (action(s) === 'actions/github-script' && /\$\{\{/.test(String(s.with?.script ?? ''))))
    .map(([id, s]) => `${id}: expression in a script: ${(s.run ?? String(s.with?.script)).slice(0, 80)}`);

const WRITE_ALL = new Set(['write-all', 'read-all']);

/**
 * excessive-permissions: the workflow grants nothing (`permissions: {}`), every job names its own
 * scopes, never `write-all`/`read-all`, and a job that is handed a model key holds no write scope
 * (what the model does is applied by a separate job that never sees the key).
 */
export const excessivePermissions: Audit = (w) => {
  const found: string[] = [];
  const top = w.permissions;
  if (top === undefined || typeof top === 'string' || Object.keys(top as object).length > 0)
    found.push(`workflow: top-level permissions ${JSON.stringify(top)}, not {}`);
  for (const [id, job] of jobs(w)) {
    if (job.uses !== undefined) continue; // a reusable workflow call is audited in its own file
    if (job.permissions === undefined) found.push(`${id}: no permissions block (gets the repository default)`);
    else if (typeof job.permissions === 'string' && WRITE_ALL.has(job.permissions)) found.push(`${id}: permissions ${job.permissions}`);
    const writes = Object.entries((job.permissions as Record<string, string>) ?? {}).filter(([, v]) => v === 'write');
    const modelKey = (job.steps ?? []).some((s) => /secrets\.\w*_API_KEY\b/.test(JSON.stringify(s.env ?? {})));
    if (modelKey && writes.length > 0) found.push(`${id}: holds a model key and writes ${writes.map(([k]) => k).join(', ')}`);
  }
  return found;
};

/** unpinned-uses: every action is pinned to a full 40-hex commit; a local action (`./`) is part of the repository. */
export const unpinnedUses: Audit = (w) => {
  const uses = [
    ...steps(w).map(([id, s]): [string, string | undefined] => [id, s.uses]),
    ...jobs(w).map(([id, j]): [string, string | undefined] => [id, j.uses]),
  ];
  return uses
    .filter((u): u is [string, string] => u[1] !== undefined)
    .filter(([, u]) => !u.startsWith('./') && !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(u) && !/^docker:\/\/[^@]+@sha256:[0-9a-f]{64}$/.test(u))
    .map(([id, u]) => `${id}: uses ${u} is not pinned to a commit`);
};

/** artipacked (credential persistence): every checkout says `persist-credentials: false`. */
export const credentialPersistence: Audit = (w) =>
  steps(w)
    .filter(([, s]) => action(s) === 'actions/checkout' && s.with?.['persist-credentials'] !== false)
    .map(([id]) => `${id}: actions/checkout leaves the token in .git/config`);

/** Refs that name code an outsider controls, when the trigger runs with the base repository's secrets. */
const UNTRUSTED_REF = /github\.(head_ref|event\.(pull_request\.head|workflow_run\.(head_|pull_requests)))/;

/**
 * dangerous-triggers: `pull_request_target` never appears (the generator refuses it); under
 * `workflow_run` no job checks out the triggering run's head or downloads that run's artifacts
 * (`run-id`/`github-token` on download-artifact), which would run or trust untrusted code with secrets.
 * A download of another run is let through only when it cannot be the triggering run's: its `if:`
 * requires one event that is neither of those triggers, and its `run-id` reads nothing of the event
 * (the continue of a paused run, workflowContinue.ts: a comment event, the run id from the ledger).
 */
export const dangerousTriggers: Audit = (w) => {
  const on = triggers(w);
  const found: string[] = [];
  if (on.includes('pull_request_target')) found.push('workflow: triggered by pull_request_target');
  if (!on.includes('workflow_run') && !on.includes('pull_request_target')) return found;
  for (const [id, s] of steps(w)) {
    if (action(s) === 'actions/checkout' && (UNTRUSTED_REF.test(String(s.with?.ref ?? '')) || UNTRUSTED_REF.test(String(s.with?.repository ?? ''))))
      found.push(`${id}: checks out untrusted head ${String(s.with?.ref ?? s.with?.repository)}`);
    if (action(s) === 'actions/download-artifact' && (s.with?.['run-id'] !== undefined || s.with?.['github-token'] !== undefined) && !otherEventOnly(s))
      found.push(`${id}: downloads artifacts of another run`);
  }
  return found;
};

/** A step that runs on one event other than workflow_run / pull_request_target and takes no run id from the event. */
function otherEventOnly(s: Step): boolean {
  const event = /^github\.event_name == '([a-z_]+)' && /.exec(s.if ?? '')?.[1];
  const fromEvent = /github\.event\b/.test(String(s.with?.['run-id'] ?? ''));
  return event !== undefined && event !== 'workflow_run' && event !== 'pull_request_target' && !fromEvent && !/\|\|/.test(s.if ?? '');
}

/** Actions whose `cache` input (or whole purpose) restores state an earlier, possibly untrusted, run saved. */
const CACHING = /^(actions\/cache(\/restore)?|actions\/setup-(node|python|go|java|dotnet)|astral-sh\/setup-uv|Swatinem\/rust-cache)$/;

/**
 * cache-poisoning: no job restores a cache. Any fire can be started by an outsider's issue or pull
 * request, and a cache one fire saves would be read by the next, including a job that writes.
 */
export const cachePoisoning: Audit = (w) =>
  steps(w)
    .filter(([, s]) => CACHING.test(action(s)))
    .filter(([, s]) => action(s).startsWith('actions/cache') || action(s).endsWith('rust-cache') || (s.with?.cache ?? s.with?.['enable-cache']) !== undefined)
    .map(([id, s]) => `${id}: ${action(s)} restores a cache`);

export const AUDITS: Record<string, Audit> = {
  'template-injection': templateInjection,
  'excessive-permissions': excessivePermissions,
  'unpinned-uses': unpinnedUses,
  'credential-persistence': credentialPersistence,
  'dangerous-triggers': dangerousTriggers,
  'cache-poisoning': cachePoisoning,
};

/** Every audit's findings, as `audit: finding`. */
export const auditWorkflow = (text: string): string[] => {
  const w = parseWorkflow(text);
  return Object.entries(AUDITS).flatMap(([name, audit]) => audit(w).map((f) => `${name}: ${f}`));
};
