/**
 * The approval policy for terminal commands and VS Code tasks (docs/DESIGN.md §6). A command runs
 * without asking only when its exact text is in `tasklane.approval.allowedCommands`. Anything a
 * shell could turn into a different or a second command (chaining, redirection, substitution,
 * variable expansion) always asks, even when listed: the check does not try to parse quoting,
 * because a quoted `$(...)` still runs in most shells and a wrong parse would be a hole.
 */

/** The outcome of the command policy. */
export type CommandClassification = { decision: 'auto' } | { decision: 'ask'; reason: string };

/** A shell construct that makes a command ask; `why` is shown to the user. */
interface ShellConstruct {
  pattern: RegExp;
  why: string;
}

// Order matters: the first match names the construct, so longer forms come before their prefixes.
const SHELL_CONSTRUCTS: readonly ShellConstruct[] = [
  { pattern: /[\r\n\u2028\u2029]/, why: 'a line break, which starts another command' },
  { pattern: /\$\(/, why: 'command substitution $(...)' },
  { pattern: /`/, why: 'command substitution with backticks' },
  { pattern: /[<>]\(/, why: 'process substitution <(...) or >(...)' },
  { pattern: /\$\{/, why: 'variable expansion ${...}' },
  { pattern: /\$[A-Za-z0-9_?!#*@$-]/, why: 'variable expansion $VAR' },
  { pattern: /%[A-Za-z_][A-Za-z0-9_]*%/, why: 'variable expansion %VAR% (cmd.exe)' },
  { pattern: /\$/, why: 'a $, which shells expand' },
  { pattern: /&&/, why: 'command chaining with &&' },
  { pattern: /\|\|/, why: 'command chaining with ||' },
  { pattern: /;/, why: 'command chaining with ;' },
  { pattern: /(^|\s)\d+>/, why: 'file-descriptor redirection such as 2>' },
  { pattern: />>/, why: 'output redirection >>' },
  { pattern: />/, why: 'output redirection >' },
  { pattern: /</, why: 'input redirection <' },
  { pattern: /\|/, why: 'a pipe |' },
  { pattern: /&/, why: 'a background or chaining &' },
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  { pattern: /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/, why: 'a control character' },
];

/** The first shell construct found in `command`, described for the user, or undefined. */
export function findShellConstruct(command: string): string | undefined {
  return SHELL_CONSTRUCTS.find((c) => c.pattern.test(command))?.why;
}

/**
 * 'auto' only when the trimmed command equals a trimmed allowlist entry exactly (no prefix or
 * pattern matching: allowing `npm test` does not allow `npm test -- --grep x`) and contains no
 * shell construct. Otherwise 'ask', with a reason for the approval prompt.
 */
export function classifyCommand(command: string, allowedCommands: readonly string[]): CommandClassification {
  const trimmed = command.trim();
  if (trimmed === '') return { decision: 'ask', reason: 'the command is empty' };
  const construct = findShellConstruct(trimmed);
  if (construct !== undefined) return { decision: 'ask', reason: `the command contains ${construct}; such commands always need approval` };
  if (!allowedCommands.some((allowed) => allowed.trim() === trimmed)) {
    return { decision: 'ask', reason: 'the command is not in tasklane.approval.allowedCommands (exact match)' };
  }
  return { decision: 'auto' };
}
