import * as vscode from 'vscode';
import { parseInput, scheduleInput, startTaskInput, TasklaneToolError } from './toolInputs';
import type { TaskBrief, TasklaneOps } from './tasklaneOps';

/** The participant's id, as `contributes.chatParticipants` declares it. */
export const CHAT_PARTICIPANT_ID = 'tasklane.tasklane';

/** What a handled request reports back (ChatResult.metadata), for follow-ups and tests. */
export interface TasklaneChatMetadata {
  command: 'task' | 'chore' | 'status' | 'help';
  taskId?: string;
  choreId?: string;
  approvalId?: string;
  /** How the followed task stood when the answer ended. */
  outcome?: string;
  error?: string;
}

const HELP = [
  "**@tasklane** hands work to Tasklane's durable queue (it survives reloads; waits cost no tokens):",
  '',
  '- `/task <instruction>`: queue a task (plain text after `@tasklane` does the same)',
  '- `/chore <cron> <prompt>`: propose a recurring chore, e.g. `/chore 0 9 * * 1 Review the open pull requests`; you review the change and Enable it before it runs',
  '- `/status`: tasks, what they wait for, chores and budgets',
].join('\n');

/** Five cron fields, then the prompt. */
const CHORE_LINE = /^\s*((?:\S+\s+){4}\S+)\s+([\s\S]+)$/;

/**
 * The `@tasklane` chat participant: `/task`, `/chore`, `/status`. A task is queued through the
 * same operation as the `tasklane_start_task` tool; the answer then follows the task live while
 * the chat request is open (progress lines for each status change) and ends when the task ends or
 * needs the person. Stopping the chat answer stops only the following: the task is durable and
 * goes on in the sidebar, which the answer links to.
 */
export function registerChatParticipant(ops: TasklaneOps, extensionUri: vscode.Uri): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(CHAT_PARTICIPANT_ID, (request, _context, stream, token) =>
    handleChatRequest(ops, request, stream, token),
  );
  participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'tasklane.svg');
  return participant;
}

export async function handleChatRequest(
  ops: TasklaneOps,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const asked = request.command ?? (request.prompt.trim() ? 'task' : 'help');
  const command: TasklaneChatMetadata['command'] = asked === 'status' || asked === 'chore' || asked === 'task' ? asked : 'help';
  const metadata = (m: TasklaneChatMetadata): vscode.ChatResult => ({ metadata: m });
  try {
    if (command === 'status') {
      stream.progress("Reading Tasklane's state…");
      stream.markdown(statusMarkdown(await ops.status()));
      stream.button({ command: 'tasklane.showTask', title: 'Open Tasklane' });
      return metadata({ command: 'status' });
    }
    if (command === 'chore') {
      const match = CHORE_LINE.exec(request.prompt);
      if (!match)
        throw new TasklaneToolError(
          'Write `/chore <cron> <prompt>`: five cron fields, then what each run should do, e.g. `/chore 0 9 * * 1 Review the open pull requests`.',
        );
      const input = parseInput(scheduleInput, { cron: match[1], prompt: match[2].trim(), name: match[2].trim().split('\n')[0].slice(0, 60) }, '/chore');
      stream.progress('Proposing the chore…');
      const { choreId, approvalId } = await ops.schedule(input);
      stream.markdown(
        `Proposed the chore **${choreId}** (\`${input.cron}\`) as a change to \`.tasklane/chores.yaml\`. Review it in the Tasklane sidebar; after you approve it, it still waits for **Enable** before it runs.`,
      );
      stream.button({ command: 'tasklane.showTask', title: 'Review in Tasklane' });
      return metadata({ command: 'chore', choreId, approvalId });
    }
    if (command === 'help') {
      stream.markdown(HELP);
      return metadata({ command: 'help' });
    }
    const input = parseInput(startTaskInput, { instruction: request.prompt }, '/task');
    stream.progress('Queueing the task…');
    const { taskId } = await ops.startTask(input, 'chat');
    stream.markdown(
      `Queued **${input.instruction.split('\n')[0].slice(0, 80)}** as Tasklane task \`${taskId}\`. It is durable: closing this chat, reloading or restarting VS Code does not lose it.\n\n`,
    );
    stream.button({ command: 'tasklane.showTask', arguments: [taskId], title: 'Open in Tasklane' });
    let last = '';
    const result = await ops
      .awaitTask(taskId, token, (task) => {
        const line = progressLine(task);
        if (line !== last) stream.progress((last = line));
      })
      .catch((error: unknown) => {
        if (error instanceof vscode.CancellationError) return undefined;
        throw error;
      });
    if (!result) {
      stream.markdown('Stopped following; the task goes on in the Tasklane sidebar.');
      return metadata({ command: 'task', taskId, outcome: 'following_stopped' });
    }
    if (result.task) stream.markdown(`\n\n${outcomeMarkdown(result.task)}`);
    return metadata({ command: 'task', taskId, outcome: result.outcome });
  } catch (error) {
    const message = (error as Error).message;
    stream.markdown(error instanceof TasklaneToolError ? message : `Tasklane could not do that: ${message}`);
    return { errorDetails: { message }, metadata: { command, error: message } satisfies TasklaneChatMetadata };
  }
}

function progressLine(task: TaskBrief): string {
  const used = `${task.budget.actions.used}/${task.budget.actions.limit} actions`;
  if (task.waitingFor) return `Task ${task.id}: waiting for ${task.waitingFor === 'continue' ? 'Continue' : `your ${task.waitingFor}`} (${used})`;
  return `Task ${task.id}: ${task.status} (${used})`;
}

function outcomeMarkdown(task: TaskBrief): string {
  if (task.waitingFor === 'reply') return `The task asks you something: answer it in the Tasklane sidebar.`;
  if (task.waitingFor === 'approval') return `The task waits for your approval in the Tasklane sidebar.`;
  if (task.waitingFor === 'continue') return `The task paused (its budget is spent): Continue or Cancel it in the Tasklane sidebar.`;
  return `The task ended **${task.status}**${task.summary ? `: ${task.summary}` : '.'}`;
}

function statusMarkdown(state: Record<string, unknown>): string {
  const tasks = (state.tasks as TaskBrief[]) ?? [];
  const ended = (state.recentlyEnded as TaskBrief[]) ?? [];
  const chores = (state.chores as Array<{ id: string; name: string; trigger: string; enabled: boolean; waitsForEnable?: boolean }>) ?? [];
  const lines: string[] = [];
  if (state.restricted) lines.push('_Restricted Mode: Tasklane can chat only until you trust this folder._', '');
  lines.push(`**Tasks** (${tasks.length} live, ${String(state.pendingApprovals ?? 0)} approvals pending)`);
  for (const t of tasks)
    lines.push(
      `- \`${t.id}\` ${t.name}: ${t.waitingFor ? `waiting for ${t.waitingFor}` : t.status}, ${t.budget.actions.used}/${t.budget.actions.limit} actions, ${t.budget.tokens.used}/${t.budget.tokens.limit} tokens`,
    );
  if (ended.length) lines.push('', '**Recently ended**', ...ended.map((t) => `- \`${t.id}\` ${t.name}: ${t.status}${t.summary ? `: ${t.summary}` : ''}`));
  lines.push(
    '',
    `**Chores** (${chores.length})`,
    ...chores.map((c) => `- ${c.name} (${c.trigger}): ${c.waitsForEnable ? 'waits for Enable' : c.enabled ? 'enabled' : 'disabled'}`),
  );
  return lines.join('\n');
}
