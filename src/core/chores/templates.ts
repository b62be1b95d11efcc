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

/**
 * The starter loops that run on GitHub Actions (issue 24): each starts from a repository event
 * and ends in outputs the apply job writes (labels, a comment, issues, a draft pull request).
 * Their prompts ask for the task_end output the apply job reads (resultManifest.ts), and the
 * outputs they may write are declared, so nothing else is written.
 */
export const ciChoreTemplates: readonly ChoreTemplate[] = [
  {
    key: 'triage-issues',
    label: 'Triage new issues (GitHub)',
    detail: 'On CI, when an issue is opened: add labels from an allowlist and one comment asking for what is missing.',
    spec: {
      id: 'triage-issues',
      name: 'Triage new issues',
      trigger: { github: { event: 'issues', types: ['opened'] } },
      prompt: [
        'Triage the issue that was just opened: decide whether it is a bug, a feature request, a question or about the documentation.',
        'Read the code it mentions when that helps you judge. If information needed to act on it is missing (steps to reproduce, versions, expected behaviour), say what in one short, friendly comment.',
        'Finish with task_end and output {"status": "triaged", "labels": [<labels>], "comment": "<comment>"}.',
      ].join('\n'),
      actionSets: [],
      budget: { maxIterations: 8, maxSeconds: 300, maxInputTokens: 200_000, maxCostUsd: 0.5, maxCostUsdPerDay: 5 },
      successWhen: "status = 'triaged'",
      outputs: { labels: { allowed: ['bug', 'enhancement', 'question', 'documentation'], max: 2 }, comment: { max: 1 } },
    },
  },
  {
    key: 'review-dependency-updates',
    label: 'Review dependency updates (GitHub)',
    detail: 'On CI, when the dependency bot opens a pull request: read the changelog and the code it touches, then post one review comment and a label.',
    spec: {
      id: 'review-dependency-updates',
      name: 'Review dependency updates',
      trigger: { github: { event: 'pull_request', types: ['opened'] } },
      prompt: [
        'A dependency bot opened this pull request. Find the packages and versions it changes, read how this repository uses them, and judge the risk of the update.',
        'Write one review comment: what changed, what in this repository could break, and whether it looks safe to merge. Do not approve or merge anything.',
        'Finish with task_end and output {"status": "reviewed", "review": "<review>", "labels": ["safe-update" or "needs-attention"]}.',
      ].join('\n'),
      actionSets: [],
      budget: { maxIterations: 10, maxSeconds: 600, maxInputTokens: 300_000, maxCostUsd: 1, maxCostUsdPerDay: 10, maxFiresPerItem: 3 },
      successWhen: "status = 'reviewed'",
      actors: { roles: ['admin', 'maintain', 'write'], bots: ['dependabot[bot]', 'renovate[bot]'] },
      outputs: { review: { max: 1 }, labels: { allowed: ['safe-update', 'needs-attention'], max: 1 } },
    },
  },
  {
    key: 'errors-into-issues',
    label: 'Errors into issues (GitHub)',
    detail: 'On CI every morning: turn new error reports into issues, one per distinct error, never the same one twice.',
    spec: {
      id: 'errors-into-issues',
      name: 'Errors into issues',
      trigger: { github: { event: 'schedule', cron: '0 6 * * *', timezone: 'UTC' } },
      prompt: [
        "Read the error reports of the last 24 hours (the error tracker's tools when this chore is granted them, else the reports a workflow step exported into error-reports/).",
        'Group them by root cause. For each distinct error, write an issue: a title naming the error and where it happens, and a body with the stack trace excerpt, the count and the first and last time seen.',
        'Finish with task_end and output {"status": "done", "issues": [{"title": "…", "body": "…"}]} (an empty list when there is nothing new).',
      ].join('\n'),
      actionSets: [],
      budget: { maxIterations: 10, maxSeconds: 600, maxInputTokens: 300_000, maxCostUsd: 1, maxCostUsdPerDay: 3 },
      successWhen: "status = 'done'",
      outputs: { issue: { max: 5 } },
    },
  },
  {
    key: 'fix-failing-build',
    label: 'Fix the failing build (GitHub)',
    detail: 'On CI, when the CI workflow fails on main: find the cause and propose the fix as a draft pull request.',
    spec: {
      id: 'fix-failing-build',
      name: 'Fix the failing build',
      trigger: { github: { event: 'workflow_run', workflows: ['CI'], branches: ['main'] } },
      prompt: [
        'The CI workflow just failed on main. Run `npm test` to see the failure, find the root cause and make the smallest edit that fixes it; run `npm test` again to check.',
        'Do not change workflows, build configuration or dependencies unless the failure is there.',
        'Finish with task_end and output {"status": "fix_proposed", "pullRequest": {"title": "<title>", "body": "<cause and fix>"}} or {"status": "needs_human", "cause": "<why>"}.',
      ].join('\n'),
      actionSets: ['files', 'commands'],
      commands: ['npm test'],
      budget: { maxIterations: 15, maxSeconds: 900, maxInputTokens: 400_000, maxCostUsd: 2, maxCostUsdPerDay: 6 },
      successWhen: "status = 'fix_proposed'",
      outputs: { pullRequest: { draft: true } },
    },
  },
];

/** Every template the picker offers: the local ones, then those that run on CI. */
export const allChoreTemplates: readonly ChoreTemplate[] = [...choreTemplates, ...ciChoreTemplates];
