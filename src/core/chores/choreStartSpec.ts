/**
 * What a chore fire's task is told and given: the chore's prompt led by what triggered the fire
 * (changed files, a task's exit code, how late a scheduled fire is), the note that nobody is
 * watching and how success is judged, and the task's name, mode, action sets and skills. The
 * runner starts every real fire with {@link choreStartSpec} and the dry run (chorePreview.ts)
 * shows the same spec, so the two cannot drift; it lives apart from both so neither imports the
 * other.
 */
import { checksInstruction } from '../checks/checkRun';
import { describeFireContext } from './fireContext';
import type { ChoreFireContext } from './fireContext';
import type { ChoreRunCause } from './runLog';
import type { ChoreDefinition } from './types';

/**
 * What every chore task is told besides its prompt: what triggered it (changed files, the task's
 * exit code, how late a scheduled fire is), that nobody is watching, and how success is judged.
 */
export function choreInstruction(
  chore: ChoreDefinition,
  fire?: { cause: ChoreRunCause; fireTime: string; startedAt: number; missed?: boolean; context?: ChoreFireContext },
): string {
  const trigger = fire
    ? describeFireContext({ ...fire, ...(chore.trigger.kind === 'cron' && chore.trigger.timezone ? { timezone: chore.trigger.timezone } : {}) })
    : '';
  return [
    chore.prompt.trim(),
    '',
    ...(trigger ? [trigger, ''] : []),
    `[chore ${chore.id}] This run is unattended: do not ask the user questions. Edits you propose wait in the review inbox; do not wait for them.`,
    ...(chore.commands?.length
      ? [
          `You may run exactly these commands with run_command, each as written (no shell: no pipes, && or redirects): ${chore.commands.map((c) => `\`${c}\``).join(', ')}. Any other command is not run in this unattended run.`,
        ]
      : []),
    ...(chore.mcp
      ? [
          `You may call exactly these MCP tools, each without asking: ${Object.entries(chore.mcp)
            .flatMap(([server, declared]) => declared.tools.map((tool) => `${tool} of the server ${server}`))
            .join(', ')}. Any other tool of those servers is refused.`,
        ]
      : []),
    // Told before it starts which checks judge its work (issue 43), not only when one fails.
    ...(chore.verify?.length ? [checksInstruction(chore.verify, chore.verifyRounds ?? 1)] : []),
    chore.successWhen
      ? `When finished call task_end with \`output\`: a JSON object; the run succeeds when the JSONata expression ${chore.successWhen} is true for it.`
      : 'When finished call task_end with a short summary and, if useful, an `output` JSON object.',
    ...(chore.terminalStatuses?.length
      ? [
          `If a person must act before this can be done, call task_end with an output whose status is one of ${['needs_human', ...chore.terminalStatuses.filter((s) => s !== 'needs_human')].join(', ')} and a cause.`,
        ]
      : []),
  ].join('\n');
}

/** What a fire of a chore is told and given, before the run's ids: see {@link choreStartSpec}. */
export interface ChoreStartSpec {
  /** The chore's prompt with the fire's trigger context and the unattended-run instruction. */
  prompt: string;
  /** The task's name: the chore's name, marked as a chore, with what fired it ({@link fireTitle}). */
  name: string;
  mode: 'simple';
  /** Exactly the chore's action sets, each once (reading is always given). */
  actionSets: string[];
  skills: string[];
}

/**
 * The task a fire starts: its instruction (prompt + trigger context), name, mode, action sets and
 * skills. The runner and the dry run (chorePreview.ts) both build it here, so they cannot drift.
 */
export function choreStartSpec(
  chore: ChoreDefinition,
  fire: { cause: ChoreRunCause; fireTime: string; startedAt: number; missed?: boolean; context?: ChoreFireContext },
): ChoreStartSpec {
  return {
    prompt: choreInstruction(chore, fire),
    // The conversation's title in History and the thread: which chore and what fired it, never
    // its prompt (written for the model; the task's Details keep it).
    name: `${chore.name} (chore: ${fireTitle(fire.cause, fire.fireTime, fire.context)})`,
    mode: 'simple',
    // Exactly the chore's sets (reading is always given): `actionSets: []` reads and talks only.
    actionSets: [...new Set(chore.actionSets)],
    skills: chore.skills,
  };
}

/**
 * What fired a run, in a few words for a title: "run by hand", "scheduled 2026-12-06 02:00 UTC",
 * "3 files changed", "task build exited 2". The full account is in the task's instruction.
 */
export function fireTitle(cause: ChoreRunCause, fireTime: string, context?: ChoreFireContext): string {
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  if (context?.kind === 'files') return `${plural(context.changes.length, 'file')} changed`;
  if (context?.kind === 'task') return `task ${context.name} ${context.exitCode === undefined ? 'was terminated' : `exited ${context.exitCode}`}`;
  if (context?.kind === 'diagnostics') return `new ${context.severity === 'error' ? 'errors' : 'problems'} in ${plural(context.files.length, 'file')}`;
  if (context?.kind === 'git') return `git ${context.change}`;
  if (context?.kind === 'github') return `GitHub ${context.event}${context.action ? ` ${context.action}` : ''}`;
  const at = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(fireTime);
  const when = at ? `${at[1]} ${at[2]} UTC` : fireTime;
  switch (cause) {
    case 'manual':
      return 'run by hand';
    case 'retry':
      return `retry of ${when}`;
    case 'cron':
      return `scheduled ${when}`;
    default:
      return cause;
  }
}
