/**
 * What the workflow generator may write into a GitHub Actions file, and how. Security review
 * 2026-12b finding 1: a chore name reached a `run:` script and a job `name:`, and line separators
 * that JSON leaves raw (U+2028, U+2029, U+0085) ended the scalar for libyaml-family parsers, while
 * `$${{{{ … }${{}` survived a one-pass filter as `${{ … }}`. So:
 *  - names and prompts are never written at all; jobs are named by the chore id;
 *  - an id, a command or a cron reaches the file only after matching a strict pattern here, again
 *    (the chores schema checks them too, but the generator does not rely on its caller);
 *  - any other text from chores.yaml (an input's description, a workflow name, a branch) is one
 *    JSON-quoted YAML scalar with every line terminator and control character replaced and every
 *    `${` broken apart, since GitHub evaluates `${{` after YAML has decoded any escape.
 */

import { labelCommandPattern } from '../core/chores/githubSchema';

export class WorkflowError extends Error {
  override readonly name = 'WorkflowError';
}

/** A chore id as the generator writes it (job ids, artifact names, command lines); throws otherwise. */
export function choreIdText(id: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(id)) throw new WorkflowError(`chore id ${JSON.stringify(id)} is not [a-z0-9-]: the workflow cannot name it.`);
  return id;
}

/** A slash command (`/tasklane <command>`), checked as strictly as an id. */
export function commandText(choreId: string, command: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(command)) throw new WorkflowError(`chore ${choreId}: the comment command ${JSON.stringify(command)} is not [a-z0-9-].`);
  return command;
}

/** An activity type (`opened`, `labeled`, a dispatch type): a word. */
export function typeText(choreId: string, type: string): string {
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(type)) throw new WorkflowError(`chore ${choreId}: the event type ${JSON.stringify(type)} is not one word.`);
  return type;
}

/** A label command's name (trigger.github.labelCommand), as the chores schema accepts it: no quote. */
export function labelCommandText(choreId: string, label: string): string {
  if (!labelCommandPattern.test(label))
    throw new WorkflowError(`chore ${choreId}: the label command ${JSON.stringify(label)} is not letters, digits, space and ._:/-.`);
  return label;
}

/** A workflow_dispatch input name, as GitHub accepts it. */
export function inputNameText(choreId: string, name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_-]{0,99}$/.test(name))
    throw new WorkflowError(`chore ${choreId}: the input name ${JSON.stringify(name)} is not a valid input id.`);
  return name;
}

/** A branch filter: a ref name with GitHub's `*` / `**` / `!` pattern characters, nothing else. */
export function branchText(choreId: string, branch: string): string {
  if (!/^!?[A-Za-z0-9._/*+-]{1,200}$/.test(branch) || branch.includes('..'))
    throw new WorkflowError(`chore ${choreId}: the branch filter ${JSON.stringify(branch)} is not a branch name or pattern.`);
  return branch;
}

/** A 5-field cron of digits, names and `*,/-` only. */
export function cronText(choreId: string, cron: string): string {
  if (!/^[0-9A-Za-z*,/-]+( [0-9A-Za-z*,/-]+){4}$/.test(cron))
    throw new WorkflowError(`chore ${choreId}: "${cron}" is not a 5-field cron pattern GitHub can run.`);
  return cron;
}

/** An IANA zone name as GitHub's `timezone:` takes it (`Europe/Paris`, `America/Argentina/Buenos_Aires`). */
export function zoneText(choreId: string, zone: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(zone) || zone.length > 64)
    throw new WorkflowError(`chore ${choreId}: the time zone ${JSON.stringify(zone)} is not an IANA zone name.`);
  return zone;
}

/** A schedule as the workflow writes it, each part checked. */
export function scheduleText(choreId: string, schedule: { cron: string; timezone?: string }): { cron: string; timezone?: string } {
  return { cron: cronText(choreId, schedule.cron), ...(schedule.timezone ? { timezone: zoneText(choreId, schedule.timezone) } : {}) };
}

/** Every character that ends a line for some YAML parser, and the other C0/C1 controls. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be replaced
const LINE_BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** One printable line with no `${` left in it (a single pass cannot create one: see the tests). */
export function safeText(text: string): string {
  return text.replace(LINE_BREAKS_AND_CONTROLS, ' ').replace(/\$\{/g, '$ {');
}

/** Human text as a YAML scalar: JSON-quoted (valid YAML) after {@link safeText}. */
export function quoted(text: string): string {
  return JSON.stringify(safeText(text));
}

/** A YAML flow sequence of quoted scalars. */
export function quotedList(values: readonly string[]): string {
  return `[${values.map(quoted).join(', ')}]`;
}

/**
 * The actions the workflow uses, pinned by the commit of a release tag (a tag can be moved; a
 * commit cannot). The tag is written beside it so Dependabot and people can read the version.
 */
export const ACTIONS = {
  checkout: { repo: 'actions/checkout', sha: '11bd71901bbe5b1630ceea73d27597364c9af683', tag: 'v4.2.2' },
  setupNode: { repo: 'actions/setup-node', sha: '49933ea5288caeca8642d1e84afbd3f7d6820020', tag: 'v4.4.0' },
  uploadArtifact: { repo: 'actions/upload-artifact', sha: 'ea165f8d65b6e75b540449e92b4886f43607fa02', tag: 'v4.6.2' },
  downloadArtifact: { repo: 'actions/download-artifact', sha: 'd3f86a106a0bac45b974a628896c90dbdf5c8093', tag: 'v4.3.0' },
} as const;

/** `uses: owner/repo@sha # tag`. */
export function uses(action: (typeof ACTIONS)[keyof typeof ACTIONS]): string {
  return `uses: ${action.repo}@${action.sha} # ${action.tag}`;
}
