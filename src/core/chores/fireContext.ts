/**
 * What caused a chore fire, carried in the fire's durable trigger and told to the model in the
 * run's first message, so a run does not start blind (the "Diagnose a failed build" chore gets the
 * task's exit code instead of rediscovering what failed).
 */

/** How a file changed within one coalesced burst. */
export type FileChangeKind = 'created' | 'changed' | 'deleted';

/** Most files listed in the first message; the rest are counted. */
export const maxContextFiles = 50;
/** Longest task output tail carried in a fire (characters). */
export const maxOutputTailChars = 4_000;

/** The trigger context of one fire. */
export type ChoreFireContext =
  | {
      kind: 'files';
      /** Distinct workspace-relative paths with their net change over the burst, first-seen order. */
      changes: Array<{ path: string; change: FileChangeKind }>;
      /** Raw watcher events coalesced into this fire. */
      events: number;
    }
  | {
      kind: 'task';
      name: string;
      /** Undefined when the task was terminated without an exit code. */
      exitCode: number | undefined;
      /**
       * The end of the task's output, when the host could obtain it. VS Code's task API does not
       * expose a task's terminal output, so the VS Code host leaves this undefined and the model is
       * told so rather than left to guess.
       */
      outputTail?: string;
    }
  | {
      kind: 'diagnostics';
      /** Files in which new problems at or above the chore's severity appeared. */
      files: Array<{ path: string; count: number; first: string }>;
      severity: 'error' | 'warning';
    }
  | {
      /** A recorded GitHub event replayed by Run now on a chore that runs on CI (githubFire.ts). */
      kind: 'github';
      /** The event's name and activity ("issues", "opened"), and its item (`owner/name#12`). */
      event: string;
      action?: string;
      item?: string;
      /** Why CI would run this fire tainted (githubTaint.ts); absent when it would not. */
      taintReasons?: string[];
      /** What the model is told: the event as delimited untrusted data and the outputs it may propose. */
      text: string;
    }
  | {
      kind: 'git';
      /** What moved HEAD, as far as the host can tell. */
      change: 'commit' | 'checkout' | 'pull' | 'moved';
      from?: string;
      to: string;
      branch?: string;
    };

/**
 * Net effect of a second event on a path already in a burst: created-then-deleted is still listed
 * (as deleted), deleted-then-created is a change, created-then-changed stays created.
 */
export function mergeChange(first: FileChangeKind, next: FileChangeKind): FileChangeKind {
  if (next === 'deleted') return 'deleted';
  if (first === 'created') return 'created';
  if (first === 'deleted') return next === 'created' ? 'changed' : next;
  return 'changed';
}

/** "3 hours", "1 hour", "25 minutes": lateness as a person says it. */
export function describeLateness(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 90) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(ms / 3_600_000);
  return `${hours} hour${hours === 1 ? '' : 's'}`;
}

/** Lateness below this is a timer waking late, not a missed fire. */
export const latenessNoticeMs = 60_000;

/**
 * The trigger-context paragraph of the run's first message. `fireTime` and `startedAt` come from
 * the fire and the run, so a cron fire run late by the drift policy says by how much.
 */
export function describeFireContext(input: {
  cause: string;
  context?: ChoreFireContext;
  fireTime: string;
  startedAt: number;
  missed?: boolean;
  timezone?: string;
}): string {
  const { context } = input;
  const lines: string[] = [];
  if (input.cause === 'cron') {
    const late = input.startedAt - Date.parse(input.fireTime);
    lines.push(`Trigger: scheduled for ${input.fireTime}${input.timezone ? ` (schedule time zone ${input.timezone})` : ''}.`);
    if (Number.isFinite(late) && (input.missed || late >= latenessNoticeMs)) {
      lines.push(
        `This fire was missed by ${describeLateness(late)} (VS Code was closed or the machine asleep at the scheduled time); take into account what happened since.`,
      );
    }
  }
  if (input.cause === 'manual') lines.push('Trigger: started by hand (Run now).');
  if (context?.kind === 'files') {
    const shown = context.changes.slice(0, maxContextFiles);
    lines.push(`Trigger: ${context.changes.length} file(s) changed (${context.events} event(s)):`);
    for (const c of shown) lines.push(`- ${c.change}: ${c.path}`);
    if (context.changes.length > shown.length) lines.push(`- … and ${context.changes.length - shown.length} more`);
  } else if (context?.kind === 'task') {
    lines.push(
      `Trigger: the task "${context.name}" ended with ${context.exitCode === undefined ? 'no exit code (it was terminated)' : `exit code ${context.exitCode}`}.`,
    );
    if (context.outputTail) lines.push('The end of its output:', '```', context.outputTail, '```');
    else
      lines.push(
        "Its output is not available to this run (VS Code does not expose a task's terminal output); rerun the failing command yourself if you need it.",
      );
  } else if (context?.kind === 'diagnostics') {
    lines.push(`Trigger: new ${context.severity === 'error' ? 'errors' : 'problems'} appeared in ${context.files.length} file(s):`);
    for (const f of context.files.slice(0, maxContextFiles)) lines.push(`- ${f.path}: ${f.count} (first: ${f.first})`);
  } else if (context?.kind === 'github') {
    lines.push(
      `Trigger: a recorded GitHub ${context.event}${context.action ? ` (${context.action})` : ''} event${context.item ? ` on ${context.item}` : ''}, replayed in VS Code by hand. Nothing is written to GitHub from here: your task_end output is shown to the person as what this chore would propose on CI.`,
      context.text,
    );
  } else if (context?.kind === 'git') {
    lines.push(
      `Trigger: git HEAD moved (${context.change}) ${context.from ? `from ${context.from.slice(0, 12)} ` : ''}to ${context.to.slice(0, 12)}${context.branch ? ` on ${context.branch}` : ''}.`,
    );
  }
  if (input.cause === 'retry') lines.push('This is a retry of a run that failed.');
  return lines.join('\n');
}

/** One line for the log and the history ("3 files changed", "task build exited 2"). */
export function summarizeFireContext(context: ChoreFireContext): string {
  switch (context.kind) {
    case 'files':
      return `${context.changes.length} file(s) changed (${context.events} events): ${context.changes
        .slice(0, 5)
        .map((c) => c.path)
        .join(', ')}`;
    case 'task':
      return `task ${context.name} exited ${context.exitCode ?? '(terminated)'}`;
    case 'diagnostics':
      return `new ${context.severity}s in ${context.files.length} file(s): ${context.files
        .slice(0, 5)
        .map((f) => f.path)
        .join(', ')}`;
    case 'git':
      return `git HEAD ${context.change} to ${context.to.slice(0, 12)}`;
    case 'github':
      return `GitHub ${context.event}${context.action ? ` (${context.action})` : ''} replayed${context.item ? ` for ${context.item}` : ''}`;
  }
}
