/**
 * Chore definitions for the workflow generator's tests, built directly (the YAML form of github
 * triggers is parsed elsewhere): a cron chore as chores.yaml would give it, and github chores made
 * from it with a trigger and outputs.
 */
import { parseChoresFile } from '../../src/core/chores/choreFile';
import type { ChoreOutputs, GithubTrigger } from '../../src/core/chores/githubTypes';
import type { ChoreDefinition } from '../../src/core/chores/types';

/** A cron chore with every default filled in, as the chores schema normalises it. */
export function cronChore(id = 'nightly', extra = ''): ChoreDefinition {
  const parsed = parseChoresFile(
    `chores:\n  - id: ${id}\n    name: Nightly\n    trigger: { cron: "0 2 * * *", timezone: UTC }\n    prompt: Tidy the changelog.\n${extra}`,
  );
  const chore = parsed.chores[0];
  if (!chore) throw new Error(`the test chore does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  return chore;
}

/** A chore on a GitHub event. */
export function githubChore(id: string, github: GithubTrigger, outputs?: ChoreOutputs, extra: Partial<ChoreDefinition> = {}): ChoreDefinition {
  const { escalate: _none, ...base } = cronChore(id);
  return { ...base, trigger: { kind: 'github', github }, ...(outputs ? { outputs } : {}), ...extra };
}

/** One chore of each event kind, with the outputs its template would declare. */
export function everyEventKind(): ChoreDefinition[] {
  return [
    cronChore('nightly', '    escalate:\n      slack: { urlSecret: team-slack }\n'),
    githubChore(
      'triage',
      { event: 'issues', types: ['opened', 'labeled'], labels: ['needs-triage'] },
      { labels: { allowed: ['bug', 'docs'], max: 2 }, comment: { max: 1 } },
    ),
    githubChore('ask', { event: 'issue_comment', command: 'ask' }, { comment: { max: 1 } }),
    githubChore('review-deps', { event: 'pull_request' }, { review: { max: 1 }, labels: { allowed: ['risk:low'], max: 1 } }),
    githubChore('fork-review', { event: 'pull_request', forks: 'read-only' }, { comment: { max: 1 } }, { escalate: { slack: { urlSecret: 'team-slack' } } }),
    githubChore('on-review', { event: 'pull_request_review' }),
    githubChore('fix-build', { event: 'workflow_run', workflows: ['CI'], branches: ['main'] }, { pullRequest: { draft: true } }),
    githubChore('errors', { event: 'repository_dispatch', types: ['sentry-alert'] }, { issue: { max: 3 } }),
    githubChore('by-hand', { event: 'workflow_dispatch', inputs: { target: { description: 'What to look at', required: true, type: 'string' } } }),
    githubChore('tokyo', { event: 'schedule', cron: '30 4 * * *', timezone: 'Asia/Tokyo' }),
  ];
}
