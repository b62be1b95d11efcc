/**
 * Chore triggers as the workflow's `on:` block (merged across chores: one workflow) and each
 * chore job's `if:` (which selects its own event out of the merged ones). `if:` is an expression,
 * not a shell, so it may read event fields (`github.event.action`, the start of a comment body);
 * no human text from chores.yaml is written into one: only ids, commands and types that passed
 * the patterns of workflowText.ts. The CLI checks the event again (labels, exact command, branch,
 * workflow name, actor): what `if:` filters is what costs a runner, not what is trusted.
 */
import type { GithubDispatchInput, GithubEventName, GithubTrigger } from '../core/chores/githubTypes';
import type { ChoreDefinition } from '../core/chores/types';
import { CONTINUE_COMMAND, CONTINUE_INPUT } from './ciResume';
import { CONTINUE_CONDITION, continuesOnComment, continuesOnCi } from './workflowContinue';
import { branchText, choreIdText, commandText, cronText, inputNameText, labelCommandText, quoted, quotedList, typeText, WorkflowError } from './workflowText';

/** A chore the workflow runs, with its trigger as a GitHub event. */
export interface CiChore {
  chore: ChoreDefinition;
  /** Cron chores are `schedule` with their cron and zone. */
  trigger: GithubTrigger;
  /** schedule: the cron as the workflow writes it (UTC, or in its `timezone:`; githubWorkflow.ts). */
  schedule?: { cron: string; timezone?: string };
}

const EVENTS: readonly GithubEventName[] = [
  'schedule',
  'workflow_dispatch',
  'repository_dispatch',
  'issues',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'workflow_run',
];

/** The activity types fired on when a chore names none: the safe defaults of issue 24. */
export function typesOf(trigger: GithubTrigger): string[] {
  if (trigger.types?.length) return [...trigger.types, ...(trigger.event === 'pull_request' && trigger.synchronize ? ['synchronize'] : [])];
  switch (trigger.event) {
    case 'issues':
      return ['opened'];
    case 'issue_comment':
      return ['created'];
    case 'pull_request':
      return ['opened', 'ready_for_review', ...(trigger.synchronize ? ['synchronize'] : [])];
    case 'pull_request_review':
      return ['submitted'];
    case 'workflow_run':
      return ['completed'];
    default:
      return [];
  }
}

/** Events whose checkout is the pull request's code: chores.yaml then comes from the default branch. */
export function isPullRequestEvent(trigger: GithubTrigger): boolean {
  return trigger.event === 'pull_request' || trigger.event === 'pull_request_review';
}

/** Checks what the generator relies on; throws WorkflowError naming the chore. */
export function checkTrigger(chore: ChoreDefinition, trigger: GithubTrigger): void {
  const id = choreIdText(chore.id);
  const event = String(trigger.event);
  if (event === 'pull_request_target')
    throw new WorkflowError(
      `chore ${id}: pull_request_target is never generated: it runs with write access and secrets on a pull request from anyone. Use pull_request (fork pull requests are skipped, or reviewed read-only with forks: read-only).`,
    );
  if (!EVENTS.includes(trigger.event)) throw new WorkflowError(`chore ${id}: "${event}" is not a GitHub event Tasklane runs on.`);
  for (const type of typesOf(trigger)) typeText(id, type);
  if (trigger.event === 'repository_dispatch' && !trigger.types?.length) throw new WorkflowError(`chore ${id}: repository_dispatch needs types.`);
  if (trigger.event === 'issue_comment') commandText(id, trigger.command ?? '');
  if (trigger.event === 'issue_comment' && trigger.command === CONTINUE_COMMAND)
    throw new WorkflowError(
      `chore ${id}: the comment command "${CONTINUE_COMMAND}" is Tasklane's own (/tasklane ${CONTINUE_COMMAND} continues a run paused at budget); rename it.`,
    );
  if (trigger.labelCommand !== undefined) {
    labelCommandText(id, trigger.labelCommand);
    if (trigger.forks === 'read-only') throw new WorkflowError(`chore ${id}: a label command cannot go with forks: read-only (no token to remove the label).`);
  }
  if (trigger.event === 'schedule' && !trigger.cron) throw new WorkflowError(`chore ${id}: schedule needs cron.`);
  // The budgets across fires on CI are counted from a day of check runs at most: a month cap would
  // be accepted and never held (review ci-2026-12c s12), so it is refused until it is counted.
  if (chore.spendLimits?.maxCostUsdPerMonth !== undefined)
    throw new WorkflowError(
      `chore ${id}: budget.maxCostUsdPerMonth is not counted on CI (only the day, hour and per-item caps are), so the workflow would not hold it. Remove it and cap the chore with maxCostUsdPerDay, or keep the chore in VS Code, where the month cap holds.`,
    );
  if (trigger.event === 'workflow_run' && (!trigger.workflows?.length || !trigger.branches?.length))
    throw new WorkflowError(`chore ${id}: workflow_run needs workflows and branches.`);
  for (const branch of trigger.branches ?? []) branchText(id, branch);
  if (trigger.event === 'workflow_dispatch')
    for (const [name, input] of Object.entries(trigger.inputs ?? {})) {
      inputNameText(id, name);
      if (!['string', 'boolean', 'choice', 'number'].includes(input.type)) throw new WorkflowError(`chore ${id}: the input ${name} has no type GitHub knows.`);
    }
  if (trigger.event === 'workflow_dispatch' && trigger.inputs && 'chore' in trigger.inputs)
    throw new WorkflowError(`chore ${id}: the workflow_dispatch input "chore" is Tasklane's own (it picks the chore to run); rename it.`);
  if (trigger.event === 'workflow_dispatch' && trigger.inputs && CONTINUE_INPUT in trigger.inputs)
    throw new WorkflowError(`chore ${id}: the workflow_dispatch input "${CONTINUE_INPUT}" is Tasklane's own (it names a paused run to continue); rename it.`);
}

/**
 * The `schedule:` entries, one per cron and zone. A scheduled run tells its jobs only the cron
 * (`github.event.schedule`), so two chores on one cron in different zones could not be told apart:
 * refused, naming both.
 */
function scheduleEntries(chores: readonly CiChore[]): string[] {
  const zoneOf = new Map<string, { zone: string | undefined; id: string }>();
  const lines: string[] = [];
  for (const c of chores) {
    const { cron, timezone } = c.schedule ?? { cron: '' };
    const seen = zoneOf.get(cron);
    if (seen && seen.zone !== timezone)
      throw new WorkflowError(
        `chores ${seen.id} and ${c.chore.id} both fire on "${cron}" but in different time zones (${seen.zone ?? 'UTC'}, ${timezone ?? 'UTC'}); a scheduled run tells the workflow only its cron, so move one of them by a minute.`,
      );
    if (seen) continue;
    zoneOf.set(cron, { zone: timezone, id: c.chore.id });
    lines.push(`    - cron: ${quoted(cron)}`, ...(timezone ? [`      timezone: ${quoted(timezone)}`] : []));
  }
  return lines;
}

/** The `on:` block for every chore of the workflow. */
export function onBlock(chores: readonly CiChore[]): string[] {
  const of = (event: GithubEventName) => chores.filter((c) => c.trigger.event === event);
  const lines = ['on:'];
  const scheduled = of('schedule');
  if (scheduled.length) lines.push('  schedule:', ...scheduleEntries(scheduled));
  // Run workflow runs any chore by its id (ci-2026-12c s31), not only schedule and dispatch chores:
  // a team re-runs an issue or pull-request chore by hand after editing its prompt, or tries one out.
  const dispatchable = chores;
  if (dispatchable.length) {
    lines.push(
      '  workflow_dispatch:',
      '    inputs:',
      '      chore:',
      '        description: The chore to run',
      '        required: true',
      '        type: choice',
      '        options:',
      ...dispatchable.map((c) => `          - ${choreIdText(c.chore.id)}`),
    );
    lines.push(...dispatchInputs(of('workflow_dispatch')));
    // A cron, schedule or dispatch chore's paused run is continued by Run workflow naming it (ciResume.ts).
    if (chores.some((c) => continuesOnCi(c) && !continuesOnComment(c)))
      lines.push(
        `      ${CONTINUE_INPUT}:`,
        "        description: To continue a run paused at budget, its run id (the paused run's summary names it); empty starts a new run",
        '        required: false',
        '        type: string',
        "        default: ''",
      );
  }
  const repositoryDispatch = of('repository_dispatch');
  // A chore whose paused runs are continued listens to created comments too (`/tasklane continue`).
  const comments = [...of('issue_comment'), ...chores.filter((c) => continuesOnComment(c) && c.trigger.event !== 'issue_comment')];
  if (repositoryDispatch.length)
    lines.push('  repository_dispatch:', `    types: ${quotedList(unique(repositoryDispatch.flatMap((c) => typesOf(c.trigger))))}`);
  for (const event of ['issues', 'issue_comment', 'pull_request_review'] as const) {
    const these = event === 'issue_comment' ? comments : of(event);
    const types = these.flatMap((c) => (c.trigger.event === event ? typesOf(c.trigger) : ['created']));
    if (these.length) lines.push(`  ${event}:`, `    types: ${quotedList(unique(types))}`);
  }
  const pulls = of('pull_request');
  if (pulls.length) {
    lines.push('  pull_request:', `    types: ${quotedList(unique(pulls.flatMap((c) => typesOf(c.trigger))))}`);
    // A branch filter only when every chore has one: otherwise one chore's filter would hide events from another.
    if (pulls.every((c) => c.trigger.branches?.length)) lines.push(`    branches: ${quotedList(unique(pulls.flatMap((c) => c.trigger.branches ?? [])))}`);
  }
  const runs = of('workflow_run');
  if (runs.length)
    lines.push(
      '  workflow_run:',
      `    workflows: ${quotedList(unique(runs.flatMap((c) => c.trigger.workflows ?? [])))}`,
      '    types: [completed]',
      `    branches: ${quotedList(unique(runs.flatMap((c) => c.trigger.branches ?? [])))}`,
    );
  return lines;
}

/**
 * The inputs of every workflow_dispatch chore, merged. One form serves every chore, so an input
 * is required in it only when a single chore is dispatchable that way (the CLI checks the chore's
 * own required inputs); two chores declaring one name differently cannot share the form.
 */
function dispatchInputs(chores: readonly CiChore[]): string[] {
  const seen = new Map<string, { owner: string; input: GithubDispatchInput }>();
  for (const { chore, trigger } of chores)
    for (const [name, input] of Object.entries(trigger.inputs ?? {})) {
      const earlier = seen.get(name);
      if (earlier && JSON.stringify(earlier.input) !== JSON.stringify(input))
        throw new WorkflowError(
          `chores ${earlier.owner} and ${chore.id} declare the workflow_dispatch input "${name}" differently; one workflow has one form.`,
        );
      seen.set(name, { owner: chore.id, input });
    }
  const lines: string[] = [];
  for (const [name, { input }] of seen) {
    lines.push(`      ${name}:`);
    if (input.description) lines.push(`        description: ${quoted(input.description)}`);
    lines.push(`        required: ${chores.length === 1 && input.required === true}`, `        type: ${input.type}`);
    if (input.type === 'choice') lines.push(`        options: ${quotedList(input.options ?? [])}`);
    if (input.default !== undefined) lines.push(`        default: ${input.type === 'boolean' ? String(input.default === 'true') : quoted(input.default)}`);
  }
  return lines;
}

/**
 * The job `if:` that selects this chore's own event, or Run workflow naming this chore (every chore
 * is dispatchable), or a `/tasklane continue` comment for a chore whose paused runs the workflow
 * continues (workflowContinue.ts). `byHand: false` leaves the last two out, for the status job: a
 * dispatch is about no item, and a continue's status is the paused run's, edited by its apply job.
 * matchEvent (core/chores/githubEvent.ts) is the same rule where the CLI checks the event again.
 */
export function jobCondition(c: CiChore, { byHand = true }: { byHand?: boolean } = {}): string {
  const own = eventCondition(c);
  if (!byHand || c.trigger.event === 'workflow_dispatch') return own;
  // `&&` binds tighter than `||` in Actions expressions, as in most languages.
  return `${own} || ${dispatchedCondition(c)}${continuesOnComment(c) ? ` || ${CONTINUE_CONDITION}` : ''}`;
}

function dispatchedCondition(c: CiChore): string {
  return `github.event_name == 'workflow_dispatch' && inputs.chore == '${choreIdText(c.chore.id)}'`;
}

function eventCondition(c: CiChore): string {
  const id = choreIdText(c.chore.id);
  const { trigger } = c;
  const dispatched = dispatchedCondition(c);
  const action = `contains(fromJSON('${JSON.stringify(typesOf(trigger).map((t) => typeText(id, t)))}'), github.event.action)`;
  // A fork's pull request is skipped unless the chore opted in to a read-only review of it.
  const notFork = trigger.forks === 'read-only' ? '' : ' && github.event.pull_request.head.repo.full_name == github.repository';
  // A label command fires on its own label only (`==` ignores case, as GitHub's label names do).
  const labelCommand = trigger.labelCommand !== undefined ? ` && github.event.label.name == '${labelCommandText(id, trigger.labelCommand)}'` : '';
  switch (trigger.event) {
    case 'schedule':
      return `github.event_name == 'schedule' && github.event.schedule == '${cronText(id, c.schedule?.cron ?? '')}'`;
    case 'workflow_dispatch':
      return dispatched;
    case 'repository_dispatch':
      return `github.event_name == '${trigger.event}' && ${action}`;
    case 'issues':
      return `github.event_name == 'issues' && ${action}${labelCommand}`;
    case 'issue_comment':
      // startsWith, never contains: the command counts only at the very start of the body.
      return `github.event_name == 'issue_comment' && ${action} && startsWith(github.event.comment.body, '/tasklane ${commandText(id, trigger.command ?? '')}')`;
    case 'pull_request':
    case 'pull_request_review':
      return `github.event_name == '${trigger.event}' && ${action}${notFork}${labelCommand}`;
    case 'workflow_run':
      return `github.event_name == 'workflow_run' && github.event.workflow_run.conclusion == 'failure'`;
  }
}

/**
 * The concurrency group key: per (chore, item) for events about an issue or a pull request (the
 * numbers are integers GitHub writes, safe in a key; the run id keeps other events apart), per
 * chore for schedules and dispatches so `skip`/`replace` mean what they mean locally.
 */
export function concurrencyGroup(c: CiChore, prefix: string): string {
  const id = choreIdText(c.chore.id);
  const perItem = ['issues', 'issue_comment', 'pull_request', 'pull_request_review'].includes(c.trigger.event);
  return perItem ? `${prefix}-${id}-\${{ github.event.issue.number || github.event.pull_request.number || github.run_id }}` : `${prefix}-${id}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
