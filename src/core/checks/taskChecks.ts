/**
 * Done means checked, for the tasks a person starts (issue 43): the workspace's checks (the
 * person's own `tasklane.checks.commands`, or a repository's `.tasklane/checks.json` once the
 * person said yes to it) judge a task that changed files when it calls task_end. The same rules as
 * a chore's `verify:` (checkRun.ts): in order, through the sealed command runner, bounded; a
 * failure goes back to the model with its output's tail while rounds remain; then the task ends
 * `error` saying which check failed. A passing round ends it done with one line per check in its
 * summary ("Checked `npm test` ✓ 12.4 s"), so the thread shows what judged it. Chore tasks are the
 * chore runner's (runChecks.ts) and are left alone here.
 */
import { choreIdOf } from '../engine/records';
import type { TaskHooks } from '../engine/taskHooks';
import type { Logger } from '../ports';
import { checksFailedMessage, describeFailure, failedCheck, maxCheckMs, recordedChecks, runChecks } from './checkRun';
import type { CheckCommand, CheckResult } from './checkRun';

/** The checks that judge a workspace's tasks, from wherever they were declared. */
export interface WorkspaceChecks {
  commands: string[];
  /** Rounds of checks before the task ends as failed. */
  rounds: number;
}

export interface TaskChecksDeps {
  /** The checks in force now (undefined: none declared, or the repository's still wait for a yes). */
  checks(): WorkspaceChecks | undefined;
  run: CheckCommand;
  /** Whether the task changed a file (engineChores.ts `choreChecksPort`). */
  changedFiles(taskId: string): Promise<boolean>;
  logger: Logger;
}

/**
 * The task hook that runs the workspace's checks at task_end. Rounds are counted per task in
 * memory: after a reload a task may get its rounds again, still bounded by its action and token
 * budget (the per-task limits pause it).
 */
export function taskChecksHook(deps: TaskChecksDeps): TaskHooks {
  const rounds = new Map<string, number>();
  return {
    beforeTaskEnd: async (task, result, signal, record) => {
      if (result.status !== 'completed' || choreIdOf(task)) return undefined;
      const checks = deps.checks();
      if (!(await deps.changedFiles(task.id))) return undefined;
      // A task that changed files with no checks declared ends done, and says it was not checked:
      // "done" is then the model's word alone, and the person should know that.
      if (!checks?.commands.length) return { kind: 'end', result: { ...result, summary: `${result.summary}\n\n${NOT_CHECKED}`, checks: 'not_checked' } };
      const round = (rounds.get(task.id) ?? 0) + 1;
      const results = await runChecks(checks.commands, recordedChecks(deps.run, { record, round, taskId: task.id }), {
        timeoutMs: maxCheckMs,
        ...(signal ? { signal } : {}),
      });
      if (signal?.aborted) return undefined;
      rounds.set(task.id, round);
      const failed = failedCheck(results);
      if (!failed) {
        rounds.delete(task.id);
        return { kind: 'end', result: { ...result, summary: `${result.summary}\n\n${results.map(checkedLine).join('\n')}`, checks: 'verified' } };
      }
      deps.logger.info('TASK', `${task.id}: check round ${round} of ${checks.rounds}: ${describeFailure(failed)}`);
      if (round < checks.rounds) return checksFailedMessage(failed, round, checks.rounds);
      rounds.delete(task.id);
      const last = failed.tail
        .split('\n')
        .filter((l) => l.trim())
        .pop();
      return {
        kind: 'end',
        result: {
          status: 'error',
          summary: `Checks failed: ${describeFailure(failed)} after ${checks.rounds} round${checks.rounds === 1 ? '' : 's'}${last ? ` (${last.trim().slice(0, 200)})` : ''}. The task's edits stay as they are; read the check's output and continue or undo them.`,
          ...(result.output ? { output: result.output } : {}),
          checks: 'failed',
        },
      };
    },
  };
}

/** The last line of a task that changed files in a workspace with no checks declared. */
export const NOT_CHECKED =
  'Not checked: no checks are declared for this workspace (set `tasklane.checks.commands`, or add `.tasklane/checks.json` and enable it).';

/** One line of a verified task's summary: "Checked `npm test` ✓ 12.4 s". */
export function checkedLine(r: CheckResult): string {
  return `Checked \`${r.command}\` ✓ ${(r.durationMs / 1000).toFixed(1)} s`;
}
