import * as z from 'zod/v4';
import type { ActorGate, ChoreOutputs, GithubEventName, GithubTrigger } from './githubTypes';
import { DEFAULT_ACTOR_GATE } from './githubTypes';

/**
 * The YAML shape of a chore that runs on GitHub Actions: `trigger: { github: … }`, `actors:` and
 * `outputs:` (issue 24's contract). Each value that the workflow generator may write into the
 * workflow (labels, branches, workflow names, types) is one printable line without `${{`, so no
 * chore text can become a workflow expression or a new YAML line (security review 2026-12b, 1).
 */

export const githubEvents: readonly GithubEventName[] = [
  'issues',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'workflow_run',
  'repository_dispatch',
  'workflow_dispatch',
  'schedule',
];

/** The activity types a trigger fires on when `types:` is left out (`repository_dispatch` has none). */
export const defaultGithubTypes: Partial<Record<GithubEventName, string[]>> = {
  issues: ['opened'],
  issue_comment: ['created'],
  pull_request: ['opened', 'ready_for_review'],
  pull_request_review: ['submitted'],
  workflow_run: ['completed'],
};

export const githubRoles = ['admin', 'maintain', 'write', 'triage', 'read'] as const;

/** Most entries in any list of a github trigger, and the longest entry. */
const maxEntries = 50;
const maxEntryChars = 100;

/** C0/C1 controls, line and paragraph separators, zero-width and bidi characters. */
// eslint-disable-next-line no-control-regex
const unsafeChars = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/** Why `value` cannot be written into a workflow, or undefined when it can. */
export function unsafeTextProblem(value: string): string | undefined {
  if (value.length > maxEntryChars) return `is longer than ${maxEntryChars} characters`;
  if (unsafeChars.test(value)) return 'contains a control, line-break, zero-width or bidi character';
  if (/\$\{\{|\}\}/.test(value)) return 'contains "${{" or "}}" (GitHub would evaluate it as an expression)';
  if (!value.trim()) return 'is empty';
  return undefined;
}

const line = (what: string) =>
  z.string({ error: `${what} must be a string` }).superRefine((value, ctx) => {
    const problem = unsafeTextProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `${what} "${value.slice(0, 40)}" ${problem}` });
  });
const lines = (what: string) =>
  z
    .array(line(`${what} entry`), { error: `${what} must be a list, e.g. [${what === 'trigger.github.types' ? 'opened' : 'main'}]` })
    .min(1, { error: `${what} needs at least one entry` })
    .max(maxEntries, { error: `${what} has more than ${maxEntries} entries` });
const count = (what: string, cap: number) =>
  z
    .number({ error: `${what} must be a number` })
    .int({ error: `${what} must be a whole number` })
    .min(1, { error: `${what} must be at least 1` })
    .max(cap, { error: `${what} must be at most ${cap}` });

const inputSchema = z.strictObject({
  description: line('trigger.github.inputs description').optional(),
  required: z.boolean({ error: 'trigger.github.inputs required must be true or false' }).optional(),
  type: z.enum(['string', 'boolean', 'choice', 'number'], { error: 'trigger.github.inputs type must be string, boolean, choice or number' }).optional(),
  options: lines('trigger.github.inputs options').optional(),
  default: line('trigger.github.inputs default').optional(),
});

/** Keys that only mean something for some events; anywhere else they are an error, not ignored. */
const onlyFor: Record<string, readonly GithubEventName[]> = {
  labels: ['issues', 'pull_request'],
  labelCommand: ['issues', 'pull_request'],
  command: ['issue_comment'],
  workflows: ['workflow_run'],
  branches: ['workflow_run', 'pull_request'],
  cron: ['schedule'],
  timezone: ['schedule'],
  inputs: ['workflow_dispatch'],
  synchronize: ['pull_request'],
  forks: ['pull_request', 'pull_request_review'],
};

export const githubTriggerSchema = z
  .strictObject({
    event: z.string({ error: `trigger.github.event must be one of ${githubEvents.join(', ')}` }),
    types: lines('trigger.github.types').optional(),
    labels: lines('trigger.github.labels').optional(),
    command: z.string({ error: 'trigger.github.command must be a string' }).optional(),
    labelCommand: z.string({ error: 'trigger.github.labelCommand must be a string (the label name)' }).optional(),
    workflows: lines('trigger.github.workflows').optional(),
    branches: lines('trigger.github.branches').optional(),
    cron: line('trigger.github.cron').optional(),
    timezone: line('trigger.github.timezone').optional(),
    inputs: z.record(z.string(), inputSchema, { error: 'trigger.github.inputs must map input names to { description, required, type }' }).optional(),
    synchronize: z.boolean({ error: 'trigger.github.synchronize must be true or false' }).optional(),
    forks: z.enum(['skip', 'read-only'], { error: 'trigger.github.forks must be skip or read-only' }).optional(),
  })
  .superRefine((g, ctx) => {
    if (g.event === 'pull_request_target') {
      ctx.addIssue({
        code: 'custom',
        path: ['event'],
        message:
          'pull_request_target is refused: it runs with write access and secrets on code from the pull request author; use pull_request (fork PRs stay read-only)',
      });
      return;
    }
    if (!(githubEvents as readonly string[]).includes(g.event)) {
      ctx.addIssue({ code: 'custom', path: ['event'], message: `trigger.github.event "${g.event.slice(0, 40)}" is not one of ${githubEvents.join(', ')}` });
      return;
    }
    const event = g.event as GithubEventName;
    for (const [key, events] of Object.entries(onlyFor)) {
      if ((g as Record<string, unknown>)[key] !== undefined && !events.includes(event))
        ctx.addIssue({ code: 'custom', path: [key], message: `trigger.github.${key} only applies to ${events.join(' or ')}; remove it` });
    }
    if (event === 'repository_dispatch' && !g.types)
      ctx.addIssue({
        code: 'custom',
        path: ['event'],
        message: 'repository_dispatch needs types: the event_type values that fire this chore, e.g. [deploy-failed]',
      });
    if (event === 'workflow_run' && (!g.workflows || !g.branches))
      ctx.addIssue({
        code: 'custom',
        // On the event's line: the key that is missing has no line of its own.
        path: ['event'],
        message: 'workflow_run needs workflows: [<workflow name>] and branches: [<branch>], so only the named runs on the named branches fire it',
      });
    if (event === 'issue_comment' && g.command === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['event'],
        message: 'issue_comment needs command: <name>; the chore fires on "/tasklane <name>" at the start of a comment',
      });
    if (g.command !== undefined && !/^[a-z0-9-]{1,40}$/.test(g.command))
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'trigger.github.command must use only a-z, 0-9 and - (at most 40), e.g. triage' });
    if (g.labelCommand !== undefined) labelCommandIssues(g, ctx);
    if (event === 'schedule' && g.cron === undefined)
      ctx.addIssue({ code: 'custom', path: ['event'], message: 'schedule needs cron: "<5 fields>" (and timezone:), e.g. cron: "0 2 * * *"' });
    if (g.types?.includes('synchronize'))
      ctx.addIssue({ code: 'custom', path: ['types'], message: 'write synchronize: true instead of listing synchronize in types' });
  });

/**
 * A label command's name is written into the job's `if:` (cli/workflowTriggers.ts), so it is held to
 * the characters label names mostly use, with no quote; it is the whole filter, so `labels:` and
 * `types:` other than labeled contradict it; a fork's read-only review has no token to remove it.
 */
function labelCommandIssues(g: z.output<typeof githubTriggerSchema>, ctx: z.core.$RefinementCtx): void {
  const add = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (!labelCommandPattern.test(g.labelCommand ?? ''))
    add('labelCommand', 'trigger.github.labelCommand must be a label name of letters, digits, space and ._:/- (at most 50), e.g. tasklane-fix');
  if (g.labels) add('labels', 'trigger.github.labels cannot go with labelCommand: the command label is the filter; remove labels');
  if (g.types && (g.types.length !== 1 || g.types[0] !== 'labeled')) add('types', 'trigger.github.labelCommand fires on labeled only; remove types');
  if (g.forks === 'read-only') add('forks', "trigger.github.labelCommand cannot go with forks: read-only: a fork's run has no token to remove the label");
}

/** The label names a label command may have (also checked by the workflow generator). */
export const labelCommandPattern = /^[A-Za-z0-9][A-Za-z0-9 ._:/-]{0,49}$/;

/** A list of exact repository roles (`actors.roles`, `actors.trustedRoles`); never `*`. */
const roleList = (field: string) =>
  z
    .array(z.string({ error: `${field} entries must be strings` }), { error: `${field} must be a list, e.g. [admin, maintain, write]` })
    .min(1, { error: `${field} needs at least one role` })
    .superRefine((roles, ctx) => {
      roles.forEach((role, i) => {
        if (role === '*')
          ctx.addIssue({
            code: 'custom',
            path: [i],
            message: `${field} may not contain "*": list the roles, e.g. [admin, maintain, write]`,
          });
        else if (!(githubRoles as readonly string[]).includes(role))
          ctx.addIssue({ code: 'custom', path: [i], message: `${field}: "${role.slice(0, 40)}" is not a role; use ${githubRoles.join(', ')}` });
      });
    })
    .optional();

export const actorsSchema = z.strictObject({
  roles: roleList('actors.roles'),
  trustedRoles: roleList('actors.trustedRoles'),
  bots: z
    .array(
      z.string({ error: 'actors.bots entries must be strings' }).superRefine((bot, ctx) => {
        if (bot.includes('*')) ctx.addIssue({ code: 'custom', message: 'actors.bots lists bots by exact login (e.g. dependabot[bot]); "*" is not allowed' });
        else if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/.test(bot))
          ctx.addIssue({ code: 'custom', message: `actors.bots: "${bot.slice(0, 40)}" is not a GitHub login such as dependabot[bot]` });
      }),
      { error: 'actors.bots must be a list of bot logins' },
    )
    .optional(),
});

/** Hard caps of the outputs a run may propose. */
export const outputCaps = { labels: 10, comment: 1, issue: 20, review: 3 };

export const outputsSchema = z
  .strictObject({
    labels: z.strictObject({ allowed: lines('outputs.labels.allowed'), max: count('outputs.labels.max', outputCaps.labels).optional() }).optional(),
    comment: z.strictObject({ max: count('outputs.comment.max', outputCaps.comment).optional() }).optional(),
    issue: z.strictObject({ max: count('outputs.issue.max', outputCaps.issue).optional() }).optional(),
    pullRequest: z
      .strictObject({
        draft: z.literal(true, { error: 'outputs.pullRequest.draft must be true: Tasklane only opens draft pull requests' }).optional(),
        paths: lines('outputs.pullRequest.paths').optional(),
      })
      .optional(),
    review: z.strictObject({ max: count('outputs.review.max', outputCaps.review).optional() }).optional(),
    pushToPullRequest: z.strictObject({ paths: lines('outputs.pushToPullRequest.paths').optional() }).optional(),
  })
  .superRefine((o, ctx) => {
    if (!o.labels && !o.comment && !o.issue && !o.pullRequest && !o.review && !o.pushToPullRequest)
      ctx.addIssue({
        code: 'custom',
        message: 'outputs needs at least one of labels, comment, issue, pullRequest, pushToPullRequest or review (or remove it)',
      });
  });

/** The normalised trigger: the default activity types filled in, fork pull requests skipped unless asked. */
export function normalizeGithubTrigger(g: z.output<typeof githubTriggerSchema>): GithubTrigger {
  const event = g.event as GithubEventName;
  const types = g.labelCommand !== undefined ? ['labeled'] : (g.types ?? defaultGithubTypes[event]);
  return {
    event,
    ...(types ? { types: [...types, ...(g.synchronize ? ['synchronize'] : [])] } : {}),
    ...(g.labels ? { labels: g.labels } : {}),
    ...(g.command !== undefined ? { command: g.command } : {}),
    ...(g.labelCommand !== undefined ? { labelCommand: g.labelCommand } : {}),
    ...(g.workflows ? { workflows: g.workflows } : {}),
    ...(g.branches ? { branches: g.branches } : {}),
    ...(g.cron !== undefined ? { cron: g.cron } : {}),
    ...(g.timezone !== undefined ? { timezone: g.timezone } : {}),
    ...(g.inputs
      ? {
          inputs: Object.fromEntries(
            Object.entries(g.inputs).map(([name, i]) => [
              name,
              {
                required: i.required ?? false,
                type: i.type ?? 'string',
                ...(i.description ? { description: i.description } : {}),
                ...(i.options ? { options: i.options } : {}),
                ...(i.default !== undefined ? { default: i.default } : {}),
              },
            ]),
          ),
        }
      : {}),
    ...(g.synchronize ? { synchronize: true } : {}),
    ...(event === 'pull_request' || event === 'pull_request_review' ? { forks: g.forks ?? 'skip' } : {}),
  };
}

/** The actor gate with its defaults: roles sorted and deduplicated, so the hash ignores their order. */
export function normalizeActors(a: z.output<typeof actorsSchema> | undefined): ActorGate {
  const roles = (a?.roles ?? DEFAULT_ACTOR_GATE.roles) as ActorGate['roles'];
  // trustedRoles only when written: a chore without it keeps the definition hash it was enabled with.
  const trusted = a?.trustedRoles as ActorGate['roles'] | undefined;
  return {
    roles: [...new Set(roles)].sort(),
    bots: [...new Set(a?.bots ?? DEFAULT_ACTOR_GATE.bots)].sort(),
    ...(trusted ? { trustedRoles: [...new Set(trusted)].sort() } : {}),
  };
}

export function normalizeOutputs(o: z.output<typeof outputsSchema>): ChoreOutputs {
  return {
    ...(o.labels ? { labels: { allowed: [...new Set(o.labels.allowed)].sort(), max: o.labels.max ?? Math.min(3, outputCaps.labels) } } : {}),
    ...(o.comment ? { comment: { max: o.comment.max ?? 1 } } : {}),
    ...(o.issue ? { issue: { max: o.issue.max ?? 1 } } : {}),
    ...(o.pullRequest ? { pullRequest: { draft: true as const, ...(o.pullRequest.paths ? { paths: o.pullRequest.paths } : {}) } } : {}),
    ...(o.review ? { review: { max: o.review.max ?? 1 } } : {}),
    ...(o.pushToPullRequest ? { pushToPullRequest: o.pushToPullRequest.paths ? { paths: o.pushToPullRequest.paths } : {} } : {}),
  };
}

/**
 * The keys of a chore that only mean something where it runs on CI or is fired by GitHub: the
 * actor gate (github), outputs (github or cron: the apply job writes them), fires per hour (github
 * or cron: counted from the fire ledger on CI, fireBudget.ts, and from the chore's runs in VS Code,
 * runGates.ts) and fires per item (github only: no other fire is about an issue or pull request).
 */
export function ciOnlyProblems(c: {
  trigger: { github?: unknown; cron?: unknown };
  actors?: unknown;
  outputs?: unknown;
  budget?: { maxFiresPerItem?: number | undefined; maxFiresPerHour?: number | undefined } | undefined;
}): Array<{ path: (string | number)[]; message: string }> {
  if (c.trigger.github !== undefined) return [];
  const cron = c.trigger.cron !== undefined;
  const problems: Array<{ path: (string | number)[]; message: string }> = [];
  if (c.actors !== undefined) problems.push({ path: ['actors'], message: 'actors only applies to a chore with trigger: { github: … }; remove it' });
  if (c.outputs !== undefined && !cron)
    problems.push({ path: ['outputs'], message: 'outputs only applies to a chore that runs on CI: trigger: { github: … } or a cron; remove it' });
  if (c.budget?.maxFiresPerItem !== undefined)
    problems.push({
      path: ['budget', 'maxFiresPerItem'],
      message: `budget.maxFiresPerItem only applies to a github trigger: it counts fires per issue or pull request, and a ${cron ? 'cron' : 'local'} fire is about none; remove it (budget.maxFiresPerHour caps how often a chore fires)`,
    });
  // budget.maxFiresPerHour holds for every trigger: VS Code's run gate counts any chore's fires
  // (a burst of saves, a flapping task, Run Chore Now), and the fire ledger counts them on CI.
  return problems;
}
