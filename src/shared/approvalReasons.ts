import { ENGLISH } from './translator';
import type { Translator } from './translator';

/**
 * Why the approval policy asks, as data: the core's classification (src/core/approval/paths/
 * sensitivePaths.ts, src/core/approval/commands/commandPolicy.ts) reports these codes and values,
 * and this file is the one place that words them. The host passes `vscode.l10n` for what a person
 * reads (an approval card, the Approve modal, a file's sensitive-path note); the core passes
 * nothing and gets English, because its `reason` text also goes to the model, the log and the CLI,
 * which stay English on purpose (docs/ARCHITECTURE.md "Words and languages").
 */

/** The families of files that always ask (one per rule of sensitivePaths.ts). */
export type SensitiveRuleId =
  | 'tasklane'
  | 'agentInstructions'
  | 'agentsSkills'
  | 'claudeFolder'
  | 'githubSkills'
  | 'copilotInstructions'
  | 'otherAgents'
  | 'codeowners'
  | 'vscodeJson'
  | 'codeWorkspace'
  | 'gitInternals'
  | 'gitHooks'
  | 'hookManagers'
  | 'gitAttributes'
  | 'devcontainer'
  | 'packageJson'
  | 'npmConfig'
  | 'yarnConfig'
  | 'lockfiles'
  | 'nodeModules'
  | 'codeConfigs'
  | 'toolRcFiles'
  | 'githubWorkflows'
  | 'githubActions'
  | 'ciPipelines'
  | 'ciFolders'
  | 'buildManifests'
  | 'envFiles';

/** The shell constructs that make a command ask (one per entry of commandPolicy.ts). */
export const SHELL_CONSTRUCT_IDS = [
  'lineBreak',
  'dollarParen',
  'backticks',
  'processSubstitution',
  'dollarBrace',
  'dollarVar',
  'percentVar',
  'dollar',
  'andAnd',
  'orOr',
  'semicolon',
  'fdRedirect',
  'append',
  'redirectOut',
  'redirectIn',
  'pipe',
  'ampersand',
  'controlChar',
] as const;
export type ShellConstructId = (typeof SHELL_CONSTRUCT_IDS)[number];

/** Why a path always asks: the family of files and its pattern, or a path that leaves the root. */
export type SensitiveWhy = { rule: SensitiveRuleId; pattern: string } | { rule: 'climbsAboveRoot' };

/** One reason the policy asks; `path` is the workspace-relative path it is about. */
export type ApprovalReason =
  | { code: 'sensitivePath'; path: string; why: SensitiveWhy }
  | { code: 'hardLink'; path: string }
  | { code: 'linkScanIncomplete'; path: string }
  | { code: 'editsNeedApproval' }
  | { code: 'choreRun' }
  | { code: 'commandEmpty' }
  | { code: 'shellConstruct'; construct: ShellConstructId }
  | { code: 'commandNotAllowed' }
  | { code: 'mcpToolNotAllowed'; tool: string };

/** What a family of sensitive files does, as a clause. */
function ruleWords(rule: SensitiveRuleId, l10n: Translator): string {
  switch (rule) {
    case 'tasklane':
      return l10n.t("files under .tasklane define the agent's own chores and powers");
    case 'agentInstructions':
      return l10n.t('agent instructions are read into every task');
    case 'agentsSkills':
    case 'githubSkills':
      return l10n.t('workspace skills are loaded into tasks');
    case 'claudeFolder':
      return l10n.t('workspace skills and agent settings are loaded into tasks');
    case 'copilotInstructions':
      return l10n.t('agent instructions steer coding agents');
    case 'otherAgents':
      return l10n.t("other coding agents' rules and settings steer them in this folder");
    case 'codeowners':
      return l10n.t('CODEOWNERS decides who must review changes');
    case 'vscodeJson':
      return l10n.t('VS Code settings, tasks and launch configurations can run code');
    case 'codeWorkspace':
      return l10n.t('workspace files carry settings and tasks that can run code');
    case 'gitInternals':
      return l10n.t('Git internals (hooks, config) can run code');
    case 'gitHooks':
      return l10n.t('git hooks run on commit and push');
    case 'hookManagers':
      return l10n.t('git hook managers run what they list');
    case 'gitAttributes':
      return l10n.t('git attributes select filter and diff drivers that run code');
    case 'devcontainer':
      return l10n.t('dev container definitions run commands on the host (initializeCommand)');
    case 'packageJson':
      return l10n.t('package.json scripts run code on install, build and test');
    case 'npmConfig':
      return l10n.t('npm config can load code (node-options, script-shell)');
    case 'yarnConfig':
      return l10n.t('yarn config selects the yarn binary and plugins that run');
    case 'lockfiles':
      return l10n.t('lockfiles decide which package tarballs are installed');
    case 'nodeModules':
      return l10n.t('installed packages run when anything imports them');
    case 'codeConfigs':
      return l10n.t('tool configs written in code run when the tool (often an editor extension) loads them');
    case 'toolRcFiles':
      return l10n.t('lint, format and test configs load plugins and setup files as code');
    case 'githubWorkflows':
      return l10n.t('CI workflows run code with the repository secrets');
    case 'githubActions':
      return l10n.t('composite actions run inside CI workflows');
    case 'ciPipelines':
      return l10n.t('CI pipelines run code with the repository secrets');
    case 'ciFolders':
      return l10n.t('CI configuration runs code with the repository secrets');
    case 'buildManifests':
      return l10n.t('build manifests and task runners run code on build, install and test');
    case 'envFiles':
      return l10n.t('environment files hold secrets and can change how tools run');
  }
}

/** A shell construct, named as "the command contains …" finishes it. */
export function constructWords(construct: ShellConstructId, l10n: Translator = ENGLISH): string {
  switch (construct) {
    case 'lineBreak':
      return l10n.t('a line break, which starts another command');
    case 'dollarParen':
      return l10n.t('command substitution $(...)');
    case 'backticks':
      return l10n.t('command substitution with backticks');
    case 'processSubstitution':
      return l10n.t('process substitution <(...) or >(...)');
    case 'dollarBrace':
      return l10n.t('variable expansion ${...}');
    case 'dollarVar':
      return l10n.t('variable expansion $VAR');
    case 'percentVar':
      return l10n.t('variable expansion %VAR% (cmd.exe)');
    case 'dollar':
      return l10n.t('a $, which shells expand');
    case 'andAnd':
      return l10n.t('command chaining with &&');
    case 'orOr':
      return l10n.t('command chaining with ||');
    case 'semicolon':
      return l10n.t('command chaining with ;');
    case 'fdRedirect':
      return l10n.t('file-descriptor redirection such as 2>');
    case 'append':
      return l10n.t('output redirection >>');
    case 'redirectOut':
      return l10n.t('output redirection >');
    case 'redirectIn':
      return l10n.t('input redirection <');
    case 'pipe':
      return l10n.t('a pipe |');
    case 'ampersand':
      return l10n.t('a background or chaining &');
    case 'controlChar':
      return l10n.t('a control character');
  }
}

/** Why a path is sensitive, as a file's note on the card and in the CLI's patch check. */
export function sensitiveWords(why: SensitiveWhy, l10n: Translator = ENGLISH): string {
  return why.rule === 'climbsAboveRoot' ? l10n.t('the path climbs above the workspace root') : l10n.t('{0} ({1})', ruleWords(why.rule, l10n), why.pattern);
}

/** One reason as a clause; `l10n` is the host's `vscode.l10n`, English for the model and the log. */
export function approvalReasonWords(reason: ApprovalReason, l10n: Translator = ENGLISH): string {
  switch (reason.code) {
    case 'sensitivePath':
      return l10n.t('{0} always needs approval: {1}', reason.path, sensitiveWords(reason.why, l10n));
    case 'hardLink':
      return l10n.t('{0} always needs approval: it is a hard link, so writing it also changes another file whose name Tasklane cannot see', reason.path);
    case 'linkScanIncomplete':
      return l10n.t('{0} needs approval: the workspace is too large to check every symbolic link that could lead to it', reason.path);
    case 'editsNeedApproval':
      return l10n.t('edits need approval (tasklane.approval.autoApproveEdits is off)');
    case 'choreRun':
      return l10n.t('a chore run never writes to the workspace unattended; its edits wait for review');
    case 'commandEmpty':
      return l10n.t('the command is empty');
    case 'shellConstruct':
      return l10n.t('the command contains {0}; such commands always need approval', constructWords(reason.construct, l10n));
    case 'commandNotAllowed':
      return l10n.t('the command is not in tasklane.approval.allowedCommands (exact match)');
    case 'mcpToolNotAllowed':
      return l10n.t('{0} is not in tasklane.approval.allowedCommands', reason.tool);
  }
}

/** Several reasons as one clause, each once, in order. */
export function approvalReasonsWords(reasons: readonly ApprovalReason[], l10n: Translator = ENGLISH): string {
  return [...new Set(reasons.map((r) => approvalReasonWords(r, l10n)))].join('; ');
}
