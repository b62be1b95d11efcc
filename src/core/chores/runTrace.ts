/**
 * A chore run's trace as a Markdown document a person reads: what it was, how it ended, what it
 * spent, and every step with its arguments and result. What a run link opens in VS Code. The
 * texts were redacted when the run was recorded; step texts are data, so they sit in code blocks.
 */
import { usageLine } from './escalationPayload';
import type { ChoreRunRecord } from './runRows';

const STEP_TEXT_CHARS = 2000;

export function runTraceMarkdown(run: ChoreRunRecord, choreName?: string): string {
  const when = (at: number | null) => (at === null ? 'still running' : new Date(at).toISOString());
  const lines = [
    `# Run ${run.runId} of ${choreName ? `${inline(choreName)} (\`${run.choreId}\`)` : `\`${run.choreId}\``}`,
    '',
    `- **Status:** ${run.status.replace(/_/g, ' ')}${run.reason ? ` — ${inline(run.reason)}` : ''}`,
    `- **Why it ran:** ${run.cause}${run.attempt ? `, retry ${run.attempt}` : ''}`,
    `- **Started:** ${when(run.startedAt)}; **ended:** ${when(run.endedAt)}`,
    `- **Usage:** ${usageLine(run.usage)}`,
    '',
    `## Steps (${run.steps.length})`,
  ];
  if (!run.steps.length) lines.push('', 'No step was recorded.');
  for (const step of run.steps) {
    lines.push('', `### ${step.id}. \`${step.name}\` — ${step.status}${step.durationMs !== null ? ` (${step.durationMs} ms)` : ''}`);
    if (step.args) lines.push('', 'Arguments:', fence(step.args));
    if (step.result) lines.push('', 'Result:', fence(step.result));
  }
  return `${lines.join('\n')}\n`;
}

/** One line of text that cannot start Markdown structure or a link. */
function inline(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[[\]<>`*_#|]/g, (c) => `\\${c}`);
}

/** A code block that no backtick run inside `text` can close. */
function fence(text: string): string {
  const cut = text.length > STEP_TEXT_CHARS ? `${text.slice(0, STEP_TEXT_CHARS)}…` : text;
  const longest = Math.max(2, ...(cut.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}text\n${cut}\n${ticks}`;
}
