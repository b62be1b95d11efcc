/**
 * The approval policy for terminal commands and VS Code tasks (docs/DESIGN.md §6). A command runs
 * without asking only when its exact text is in `tasklane.approval.allowedCommands`. Anything a
 * shell could turn into a different or a second command (chaining, redirection, substitution,
 * variable expansion) always asks, even when listed: the check does not try to parse quoting,
 * because a quoted `$(...)` still runs in most shells and a wrong parse would be a hole.
 */

import { approvalReasonWords, constructWords } from '../../../shared/approvalReasons';
import type { ApprovalReason, ShellConstructId } from '../../../shared/approvalReasons';

/**
 * The outcome of the command policy: `why` is the reason as a code and values (the host words it in
 * the person's language, src/shared/approvalReasons.ts); `reason` is the same in English for the
 * model and the log, which stay English on purpose.
 */
export type CommandClassification = { decision: 'auto' } | { decision: 'ask'; reason: string; why: ApprovalReason };

/** An 'ask' whose English text is made from its code, so the two never say different things. */
export function askBecause(why: ApprovalReason): CommandClassification {
  return { decision: 'ask', reason: approvalReasonWords(why), why };
}

/** A shell construct that makes a command ask; `construct` names it (worded in src/shared/approvalReasons.ts). */
interface ShellConstruct {
  pattern: RegExp;
  construct: ShellConstructId;
}

// Order matters: the first match names the construct, so longer forms come before their prefixes.
const SHELL_CONSTRUCTS: readonly ShellConstruct[] = [
  { pattern: /[\r\n\u2028\u2029]/, construct: 'lineBreak' },
  { pattern: /\$\(/, construct: 'dollarParen' },
  { pattern: /`/, construct: 'backticks' },
  { pattern: /[<>]\(/, construct: 'processSubstitution' },
  { pattern: /\$\{/, construct: 'dollarBrace' },
  { pattern: /\$[A-Za-z0-9_?!#*@$-]/, construct: 'dollarVar' },
  { pattern: /%[A-Za-z_][A-Za-z0-9_]*%/, construct: 'percentVar' },
  { pattern: /\$/, construct: 'dollar' },
  { pattern: /&&/, construct: 'andAnd' },
  { pattern: /\|\|/, construct: 'orOr' },
  { pattern: /;/, construct: 'semicolon' },
  { pattern: /(^|\s)\d+>/, construct: 'fdRedirect' },
  { pattern: />>/, construct: 'append' },
  { pattern: />/, construct: 'redirectOut' },
  { pattern: /</, construct: 'redirectIn' },
  { pattern: /\|/, construct: 'pipe' },
  { pattern: /&/, construct: 'ampersand' },
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  { pattern: /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/, construct: 'controlChar' },
];

/** The first shell construct found in `command`, or undefined. */
export function shellConstructIn(command: string): ShellConstructId | undefined {
  return SHELL_CONSTRUCTS.find((c) => c.pattern.test(command))?.construct;
}

/** The first shell construct found in `command`, in English (for the model), or undefined. */
export function findShellConstruct(command: string): string | undefined {
  const construct = shellConstructIn(command);
  return construct === undefined ? undefined : constructWords(construct);
}

/**
 * 'auto' only when the trimmed command equals a trimmed allowlist entry exactly (no prefix or
 * pattern matching: allowing `npm test` does not allow `npm test -- --grep x`) and contains no
 * shell construct. Otherwise 'ask', with a reason for the approval prompt.
 */
export function classifyCommand(command: string, allowedCommands: readonly string[]): CommandClassification {
  const trimmed = command.trim();
  if (trimmed === '') return askBecause({ code: 'commandEmpty' });
  const construct = shellConstructIn(trimmed);
  if (construct !== undefined) return askBecause({ code: 'shellConstruct', construct });
  if (!allowedCommands.some((allowed) => allowed.trim() === trimmed)) return askBecause({ code: 'commandNotAllowed' });
  return { decision: 'auto' };
}
