/**
 * run_command and run_task: the model-facing half of the command approval flow. The policy and
 * the running live in CommandService; these actions only turn its answer into a tool result or a
 * wait for approval.
 */
import * as z from 'zod/v4';
import { defineAction } from '../../actions/types';
import type { ActionDef } from '../../actions/types';
import type { CommandService } from './commandService';
import { describeResult, MAX_TIMEOUT_MS, RESTRICTED_MESSAGE } from './commandService';
import type { CommandKind } from './commandApproval';
import { ACTION_SETS } from '../../actions/actionSets';

/** What the actions need from the service (a narrow view, so tests and late wiring can pass a forwarder). */
export type CommandRequester = Pick<CommandService, 'request'>;

const timeoutSeconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_TIMEOUT_MS / 1000)
  .optional()
  .describe('Stop it after this many seconds (default 120).');

async function runOrAsk(
  service: CommandRequester,
  kind: CommandKind,
  command: string,
  timeout: number | undefined,
  ctx: Parameters<ActionDef['run']>[1],
): Promise<string> {
  if (!ctx.taskId) throw new Error(`${kind === 'task' ? 'run_task' : 'run_command'} works inside a task only: start a task first.`);
  const answer = await service.request({
    kind,
    command,
    taskId: ctx.taskId,
    sessionId: ctx.sessionId,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    signal: ctx.signal,
  });
  if ('ran' in answer) return describeResult(kind, command.trim(), answer.ran);
  const what = kind === 'task' ? `task '${answer.pending.command}'` : `\`${answer.pending.command}\``;
  ctx.turn.needsApproval(answer.pending.id, `run ${what}`);
  return `Asked the user to approve ${what} (${answer.pending.reason}). Nothing has run yet; you will get the result, or the reason for a rejection, in the next turn.`;
}

/**
 * The two actions, bound to a service. `irreversible` is false on purpose: the ledger entry is
 * written by the service around the actual run, which may happen turns later after an approval;
 * an intent logged when merely asking would claim a run that never happened.
 */
export function commandActions(service: CommandRequester): ActionDef[] {
  return [
    defineAction({
      name: 'run_command',
      description:
        'Run a shell command in the workspace folder, in a terminal the user can see, and get its exit code and output (long output is cut in the middle). ' +
        'The user approves each command unless its exact text is allowlisted; commands with &&, ;, |, redirections, $(...) or $VAR always need approval, so prefer one plain command per call. ' +
        'If approval is needed the task waits and the result comes in the next turn.',
      input: z.object({
        command: z.string().min(1).max(4000).describe('The exact command line, e.g. "npm test".'),
        timeoutSeconds,
      }),
      actionSets: [ACTION_SETS.commands],
      parallelizable: false,
      irreversible: false,
      approval: 'policy',
      run: (input, ctx) => runOrAsk(service, 'command', input.command, input.timeoutSeconds, ctx),
    }),
    defineAction({
      name: 'run_task',
      description:
        'Run a VS Code task of this workspace by its name (label in .vscode/tasks.json, e.g. "build") and get its exit code; its output stays in the task\'s terminal. ' +
        'The user approves each run unless "task:<name>" is allowlisted. If approval is needed the task waits and the exit code comes in the next turn.',
      input: z.object({
        name: z.string().min(1).max(400).describe('The task name (label).'),
        timeoutSeconds,
      }),
      actionSets: [ACTION_SETS.commands],
      parallelizable: false,
      irreversible: false,
      approval: 'policy',
      run: (input, ctx) => runOrAsk(service, 'task', input.name, input.timeoutSeconds, ctx),
    }),
  ];
}

/**
 * Restricted Mode for any set of "doing" actions (those that need approval or are irreversible:
 * edits, commands, webhooks): the action stays registered, so trust granted at runtime works at
 * once without a reload, but refuses to run while the workspace is untrusted.
 */
export function guardRestricted(actions: readonly ActionDef[], trusted: () => boolean): ActionDef[] {
  return actions.map((action) => {
    if (action.approval === 'never' && !action.irreversible) return action;
    return {
      ...action,
      available: () => trusted() && (action.available?.() ?? true),
      run: (input, ctx) => {
        if (!trusted()) return Promise.reject(new Error(RESTRICTED_MESSAGE));
        return action.run(input, ctx);
      },
    };
  });
}
