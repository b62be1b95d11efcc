import type { ChoreSpec } from './choreSchema';

/** A starter chore offered by `tasklane.newChore`; `spec` is written to chores.yaml with `appendChore`. */
export interface ChoreTemplate {
  /** Stable key for the picker; also the default chore id. */
  key: string;
  /** Quick-pick label. */
  label: string;
  /** Quick-pick detail: what it does and when. */
  detail: string;
  spec: ChoreSpec;
}

/**
 * The three chores that ship in the box (issue #6). Prompts ask for a final JSON output whose shape
 * matches `successWhen`, so success is judged on what the agent reports, not on its tone.
 */
export const choreTemplates: readonly ChoreTemplate[] = [
  {
    key: 'nightly-changelog',
    label: 'Nightly changelog entry',
    detail: "Every night at 02:00, add a CHANGELOG.md entry for the day's commits (the edit waits for your review).",
    spec: {
      id: 'nightly-changelog',
      name: 'Nightly changelog',
      trigger: { cron: '0 2 * * *' },
      prompt: [
        'Add an entry to CHANGELOG.md for the commits of the last 24 hours.',
        'List the commits with `git log --since="24 hours ago" --no-merges --format="%h %s"`; if there are none, change nothing.',
        'Group the entries under Added / Changed / Fixed, one line per user-visible change, and propose the edit to CHANGELOG.md.',
        'Finish with task_end and output {"status": "done", "entries": <number of lines added>} or {"status": "nothing_to_do"}.',
      ].join('\n'),
      actionSets: ['files', 'commands'],
      // Declared: it runs without asking once the chore is enabled (and headless, it is the only one).
      commands: ['git log --since="24 hours ago" --no-merges --format="%h %s"'],
      skills: ['changelog'],
      budget: { maxIterations: 10, maxSeconds: 600, maxInputTokens: 200_000, maxCostUsd: 1 },
      successWhen: "status in ['done', 'nothing_to_do']",
      onFailure: 'silent',
      concurrency: 'skip',
      drift: 'latest',
    },
  },
  {
    key: 'build-failure-fix',
    label: 'Diagnose a failed build',
    detail: 'When the "build" task exits non-zero, read the errors, find the cause and propose a fix for review.',
    spec: {
      id: 'build-failure-fix',
      name: 'Build failed: diagnose and propose a fix',
      trigger: { task: { name: 'build', when: 'exitCode != 0' } },
      prompt: [
        'The VS Code task "build" just failed.',
        'Run `npm run build` to see its errors, find the root cause in the code, and propose the smallest edit that fixes it.',
        'Do not change build configuration or dependencies unless the error is there.',
        'Finish with task_end and output {"status": "fix_proposed", "cause": "<one sentence>"} or {"status": "needs_human", "cause": "<why>"}.',
      ].join('\n'),
      actionSets: ['files', 'commands'],
      commands: ['npm run build', 'npm test'],
      budget: { maxIterations: 15, maxSeconds: 900, maxInputTokens: 400_000, maxCostUsd: 2 },
      successWhen: "status = 'fix_proposed'",
      onFailure: 'silent',
      concurrency: 'replace',
    },
  },
  {
    key: 'weekly-dependency-check',
    label: 'Weekly dependency-update check',
    detail: 'Every Monday at 09:00, list outdated dependencies and propose safe (patch/minor) updates.',
    spec: {
      id: 'weekly-dependency-check',
      name: 'Weekly dependency-update check',
      trigger: { cron: '0 9 * * 1' },
      prompt: [
        "Check the project's dependencies for available updates (for npm: `npm outdated --json`).",
        'Propose updates only for patch and minor versions, and list major updates with a one-line note on what they would break.',
        'Finish with task_end and output {"status": "done", "proposed": <count>, "majors": [<package names>]}.',
      ].join('\n'),
      actionSets: ['files', 'commands'],
      commands: ['npm outdated --json'],
      budget: { maxIterations: 10, maxSeconds: 600, maxInputTokens: 300_000, maxCostUsd: 1 },
      successWhen: "status = 'done'",
      onFailure: 'silent',
      concurrency: 'skip',
      drift: 'latest',
    },
  },
];
