import * as vscode from 'vscode';
import { showInvisible } from '../../shared/visibleText';
import { confirmationText, quoted, startTaskQuestion } from './confirmationText';
import { awaitInput, parseInput, scheduleInput, startTaskInput, statusInput, TasklaneToolError } from './toolInputs';
import type { ConsentDialogs } from '../consentDialog';
import type { TasklaneOps } from './tasklaneOps';

/** The tool names, as `contributes.languageModelTools` in package.json declares them. */
export const LM_TOOL_NAMES = ['tasklane_start_task', 'tasklane_schedule', 'tasklane_status', 'tasklane_await'] as const;

const text = (value: unknown) =>
  new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(typeof value === 'string' ? value : JSON.stringify(value, null, 1))]);

/**
 * Tasklane's durable queue as language model tools any VS Code agent can call. The two that
 * change something ask first, so the person sees exactly what is queued before it is: a task
 * (which reads the workspace and reports back to the caller) in Tasklane's own modal on every
 * call, a chore proposal (which still waits for Approve and Enable) in VS Code's confirmation.
 * The two that read (status, await) only say what they do.
 * Input is checked with zod here too (a caller may skip the JSON Schema), and a bad input
 * rejects with a message naming the field, which the calling model can act on.
 */
export function registerLmTools(ops: TasklaneOps, dialogs: ConsentDialogs): vscode.Disposable[] {
  return [
    vscode.lm.registerTool<unknown>('tasklane_start_task', {
      // No confirmationMessages: VS Code's own confirmation can be switched off for a tool
      // ("Always allow"), and then nothing would show the person what reads their workspace and
      // reports back. Tasklane asks in its own modal on every call instead (invoke).
      prepareInvocation(options) {
        const input = parseInput(startTaskInput, options.input, 'tasklane_start_task');
        // Too long to show whole: nothing is queued (invoke refuses).
        if ('refused' in confirmationText(input.instruction)) return { invocationMessage: 'Refusing a Tasklane task too long to show' };
        return { invocationMessage: 'Asking you to queue a Tasklane task' };
      },
      async invoke(options) {
        const input = parseInput(startTaskInput, options.input, 'tasklane_start_task');
        const confirmed = confirmationText(input.instruction);
        if ('refused' in confirmed) throw new TasklaneToolError(confirmed.refused);
        const question = startTaskQuestion(input.mode, input.budget);
        if (!(await dialogs.confirm(question, confirmed.shown, 'Queue', 'task-from-another-agent'))) throw new vscode.CancellationError();
        const { taskId } = await ops.startTask(input, 'lm_tool');
        return text({
          taskId,
          queued: true,
          note: 'The task is durable (it survives a restart). Call tasklane_await with this taskId to wait for it, or tasklane_status to check on it.',
        });
      },
    }),
    vscode.lm.registerTool<unknown>('tasklane_schedule', {
      prepareInvocation(options) {
        const input = parseInput(scheduleInput, options.input, 'tasklane_schedule');
        const confirmed = confirmationText(input.prompt, 'prompt');
        if ('refused' in confirmed) return { invocationMessage: 'Refusing a Tasklane chore too long to show' };
        return {
          invocationMessage: 'Proposing a Tasklane chore',
          confirmationMessages: {
            title: 'Propose a Tasklane chore?',
            message: new vscode.MarkdownString(
              `A chore "${showInvisible(input.name)}" on \`${input.cron}\`${input.timezone ? ` (${input.timezone})` : ''} is added to .tasklane/chores.yaml as a change for you to review; it does not run until you approve the change and then Enable it. Its whole prompt:\n\n${quoted(confirmed.shown)}`,
            ),
          },
        };
      },
      async invoke(options) {
        const input = parseInput(scheduleInput, options.input, 'tasklane_schedule');
        const confirmed = confirmationText(input.prompt, 'prompt');
        if ('refused' in confirmed) throw new TasklaneToolError(confirmed.refused);
        const result = await ops.schedule(input);
        return text({
          ...result,
          state: 'proposed',
          note: 'The person reviews the change in the Tasklane sidebar; after Approve the chore still waits for Enable. Nothing runs until then.',
        });
      },
    }),
    vscode.lm.registerTool<unknown>('tasklane_status', {
      prepareInvocation: () => ({ invocationMessage: "Reading Tasklane's tasks, waits and chores" }),
      async invoke(options) {
        const input = parseInput(statusInput, options.input, 'tasklane_status');
        return text(await ops.status(input.taskId));
      },
    }),
    vscode.lm.registerTool<unknown>('tasklane_await', {
      prepareInvocation: () => ({ invocationMessage: 'Waiting for the Tasklane task' }),
      async invoke(options, token) {
        const input = parseInput(awaitInput, options.input, 'tasklane_await');
        const result = await ops.awaitTask(input.taskId, token);
        if (result.outcome === 'unknown_task') return text(`No Tasklane task "${input.taskId}"; call tasklane_status to list tasks.`);
        return text(result);
      },
    }),
  ];
}
