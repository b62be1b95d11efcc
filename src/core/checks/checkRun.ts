/**
 * Running a task's declared checks (a chore's `verify:`) when it calls task_end, and telling the
 * model what failed. Kept apart from the chore runner so the same rules serve any task whose end
 * is judged by the project's own checks: one check after another, each through the same sealed
 * command runner as `commands:` (no shell, scrubbed environment, bounded time and output), the
 * first failure stops the round (later checks would judge broken work and cost time).
 */
import type { CommandResult } from '../approval/commands/commandApproval';
import type { TaskEventRecorder } from '../engine/taskHooks';

/** One check as the run record, the JSON line and the escalation show it. */
export interface CheckResult {
  /** The command line exactly as declared. */
  command: string;
  /** Null when it was killed (timeout, cancel) or never started. */
  exitCode: number | null;
  durationMs: number;
  ok: boolean;
  /** Why it did not pass when the exit code does not say it (timed out, cancelled, could not start). */
  problem?: string;
  /** The last lines of its output (at most {@link checkTailChars}), for the model and the trace. */
  tail: string;
}

/** Characters of a failing check's output the model is given: its verdict is at the end. */
export const checkTailChars = 4_000;
/** Rounds of checks a run gets when the chore does not say (`verifyRounds`), and the most it may say. */
export const checkRoundLimits = { default: 3, cap: 10 };
/** The longest one check may run when the run's own deadline is further away. */
export const maxCheckMs = 10 * 60_000;

/** Runs `command` through the sealed runner; never rejects (a runner that throws is a failed check). */
export type CheckCommand = (command: string, options: { timeoutMs: number; signal?: AbortSignal; taskId?: string }) => Promise<CommandResult>;

/**
 * Runs the checks in order and stops at the first that fails. `timeoutMs` bounds each check; a
 * `signal` that aborts (Stop, Cancel, the run's deadline) kills the one running and skips the rest.
 */
export async function runChecks(commands: readonly string[], run: CheckCommand, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const command of commands) {
    if (options.signal?.aborted) break;
    let result: CommandResult;
    try {
      result = await run(command, { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      result = { exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 0, error: errorText(error) };
    }
    const checked = toCheckResult(command, result, options.timeoutMs);
    results.push(checked);
    if (!checked.ok) break;
  }
  return results;
}

/** A command's result as a check: passed only on exit code 0. */
export function toCheckResult(command: string, result: CommandResult, timeoutMs: number): CheckResult {
  const problem = result.error
    ? result.error
    : result.cancelled
      ? 'stopped before it finished'
      : result.timedOut
        ? `did not finish within ${Math.round(timeoutMs / 1000)} s`
        : undefined;
  return {
    command,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    ok: result.exitCode === 0 && !problem,
    ...(problem ? { problem } : {}),
    tail: outputTail(result.output, checkTailChars),
  };
}

/** The last `max` characters of `text`, cut at a line start, so the model sees a check's verdict. */
export function outputTail(text: string, max: number): string {
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.length <= max) return trimmed;
  const cut = trimmed.slice(-max);
  const newline = cut.indexOf('\n');
  return `…\n${newline >= 0 && newline < max / 2 ? cut.slice(newline + 1) : cut}`;
}

/** The check that failed a round, or undefined when the round passed. */
export function failedCheck(results: readonly CheckResult[]): CheckResult | undefined {
  return results.find((r) => !r.ok);
}

/**
 * `run` for the checks of one round of one task: in the task's own terminal, after its commands
 * (`taskId`; the host keeps one per task), and each check a row of the task's block while it runs
 * and after ("Checked `npm test` ✓ 12.4 s"): a `check` event at its start and one at its end,
 * sharing a key. Without `record` (a host that keeps no thread) only the task id is added.
 */
export function recordedChecks(run: CheckCommand, at: { record?: TaskEventRecorder; round: number; taskId: string }): CheckCommand {
  let index = 0;
  return async (command, options) => {
    const key = `${at.round}.${++index}`;
    await at.record?.('check', { key, command });
    const result = await run(command, { ...options, taskId: at.taskId }).catch((error: unknown): CommandResult => ({
      exitCode: null,
      output: '',
      truncatedChars: 0,
      timedOut: false,
      cancelled: false,
      durationMs: 0,
      error: errorText(error),
    }));
    await at.record?.('check', { key, ...checkEventData(toCheckResult(command, result, options.timeoutMs)) });
    return result;
  };
}

/**
 * A check's result as the data of its `check` event, which the thread shows as a row ("Checked
 * `npm test` ✓ 12.4 s", "✗ 2 failing · 3.1 s"): the tail stays with the model and the trace.
 */
export function checkEventData(check: CheckResult): Record<string, unknown> {
  const gist = check.ok ? undefined : (check.problem ?? failureGist(check.tail) ?? `exit code ${check.exitCode}`);
  return { command: check.command, exitCode: check.exitCode, durationMs: check.durationMs, ok: check.ok, ...(gist ? { gist } : {}) };
}

/**
 * What a failed check's output says in a few words, from the count test runners print ("2
 * failing" of mocha, "Tests: 3 failed" of jest, "1 failed" of vitest and pytest), else its last
 * line; undefined for no output.
 */
export function failureGist(tail: string): string | undefined {
  const lines = tail
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const count = /\b(\d+) (failing|failed)\b/i.exec(lines[i] ?? '');
    if (!count) continue;
    // Mocha lists the failures after the count: "1) suite title".
    const first = lines.slice(i + 1).find((l) => /^1\)\s/.test(l));
    return `${count[1]} ${count[2]?.toLowerCase()}${first ? `: ${first.replace(/^1\)\s+/, '').slice(0, 80)}` : ''}`;
  }
  const last = lines.pop();
  return last ? (last.length > 100 ? `${last.slice(0, 99)}…` : last) : undefined;
}

/** One line a person reads about a failed check: "`npm test` exited 1" or why it did not run. */
export function describeFailure(check: CheckResult): string {
  return `\`${check.command}\` ${check.problem ?? `exited ${check.exitCode}`}`;
}

/**
 * What the model is told after a failed round (written for the model): which check failed, the
 * tail of its output, and how many rounds are left. The task goes on with this as its next input.
 */
export function checksFailedMessage(check: CheckResult, round: number, rounds: number): string {
  const left = rounds - round;
  return [
    `Your task_end was not accepted: the project's check ${describeFailure(check)}.`,
    check.tail ? `The end of its output:\n\`\`\`\n${check.tail}\n\`\`\`` : 'It printed nothing.',
    `Fix the cause in the files, then call task_end again; the checks run again then. ${left} more round${left === 1 ? '' : 's'} of checks after this one; then the run ends "checks failed".`,
  ].join('\n');
}

/** What the model is told before it starts (in its instruction): which checks will judge its work. */
export function checksInstruction(commands: readonly string[], rounds: number): string {
  return `When you call task_end after changing files, these checks run in the workspace with your changes, in order: ${commands
    .map((c) => `\`${c}\``)
    .join(', ')}. The work is done only when each exits 0; a failure comes back to you with its output (at most ${rounds} round${
    rounds === 1 ? '' : 's'
  }). If you change no file, the checks do not run.`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
