import * as vscode from 'vscode';
import { showInvisible } from '../../shared/visibleText';
import { confirmationText, quoted } from './confirmationText';
import { awaitInput, parseInput, scheduleInput, startTaskInput, statusInput, TasklaneToolError } from './toolInputs';
import type { TasklaneOps } from './tasklaneOps';

/** The tool names, as `contributes.languageModelTools` in package.json declares them. */
export const LM_TOOL_NAMES = ['tasklane_start_task', 'tasklane_schedule', 'tasklane_status', 'tasklane_await'] as const;

const text = (value: unknown) =>
  new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(typeof value === 'string' ? value : JSON.stringify(value, null, 1))]);

/**
 * Tasklane's durable queue as language model tools any VS Code agent can call. The two that
 * change something (start a task, propose a chore) carry confirmation text, so the person sees
 * exactly what is queued before it is; the two that read (status, await) only say what they do.
 * Input is checked with zod here too (a caller may skip the JSON Schema), and a bad input
 * rejects with a message naming the field, which the calling model can act on.
 */
export function registerLmTools(ops: TasklaneOps): vscode.Disposable[] {
  return [
    vscode.lm.registerTool<unknown>('tasklane_start_task', {
      prepareInvocation(options) {
        const input = parseInput(startTaskInput, options.input, 'tasklane_start_task');
        const budget = input.budget
          ? ` Budget: ${Object.entries(input.budget)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}.`
          : '';
        const confirmed = confirmationText(input.instruction);
        // Too long to show whole: nothing is queued (invoke refuses), so there is nothing to confirm.
        if ('refused' in confirmed) return { invocationMessage: 'Refusing a Tasklane task too long to show' };
        return {
          invocationMessage: 'Queueing a Tasklane task',
          confirmationMessages: {
            title: 'Queue a durable Tasklane task?',
            message: new vscode.MarkdownString(
              `Tasklane will run this ${input.mode} task in the background, with your model and budget. It can read this workspace and report back to the agent that asked; it cannot edit files, run commands or use MCP tools, nor can any task it starts.${budget} The whole instruction:\n\n${quoted(confirmed.shown)}`,
            ),
          },
        };
      },
      async invoke(options) {
        const input = parseInput(startTaskInput, options.input, 'tasklane_start_task');
        const confirmed = confirmationText(input.instruction);
        if ('refused' in confirmed) throw new TasklaneToolError(confirmed.refused);
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
