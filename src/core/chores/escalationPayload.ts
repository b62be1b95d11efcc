import { redactCredentials } from '../security/redact';
import { forSlack } from '../security/surfaceText';
import type { ChoreUsageTotals } from './runBudget';
import type { ChoreRunRecord } from './runLog';
import type { ChoreRunStatus } from './runPolicy';
import type { ChoreBudget } from './types';
import { promptTokens } from '../model/usage';
import { costText } from '../../shared/costText';

/** What every channel reports about a run that needs a person (issue #6). JSON body of the generic webhook. */
export interface EscalationPayload {
  /** Lets a receiver route on the shape; bumped if the shape changes. */
  type: 'tasklane.chore_escalation';
  version: 1;
  chore: { id: string; name: string };
  runId: string;
  /** The run's status; `paused_at_budget` while a run parked at its budget waits (its record says `running`). */
  status: ChoreRunStatus | 'paused_at_budget';
  reason: string;
  usage: ChoreUsageTotals;
  /** The last five steps of the trace, oldest first. */
  lastSteps: Array<{ name: string; status: string; durationMs: number | null; args: string; result: string }>;
  startedAt: string;
  endedAt: string | null;
  /** Workspace folder name, so a team with several repos knows which one. */
  workspace?: string;
  /** Opens the run: its trace in VS Code (`vscode://tasklane.tasklane/run?id=…`), or the CI run page. */
  runLink?: string;
  /**
   * Set when the run parked waiting for a person's review (status `awaiting_review` while the run
   * is still open): what waits, and the link that opens it in VS Code. Deciding there resumes the run.
   */
  approval?: ReviewRequest;
  /**
   * Set when the run parked at its budget (status `paused_at_budget`, the run still open): what it
   * reached, the budget a resume grants, and the link that resumes it after the person's yes.
   */
  pause?: BudgetPauseRequest;
}

/** A run parked at its budget, as an escalation tells it (pauseNotice.ts). */
export interface BudgetPauseRequest {
  /** The limit it reached, as the run record says it ("used 12 of 10 iterations (budget.maxIterations)"). */
  message: string;
  /** What one resume adds on top of what the run used: another budget of the chore's size. */
  grants: ChoreBudget;
  /**
   * `vscode://tasklane.tasklane/resume?id=<run id>` (or the code-server equivalent): opens the
   * parked run's task and asks the person before resuming it; never resumes on its own.
   */
  link: string;
}

/** An approval a parked chore run waits for, as an escalation tells it. */
export interface ReviewRequest {
  id: string;
  /** What the proposal does ("Edit README.md", "Run: npm test"). */
  summary: string;
  /** `vscode://tasklane.tasklane/approval?id=…` (or the code-server equivalent) for this approval. */
  link: string;
}

const stepTextChars = 300;

/**
 * The payload of one escalation. Every text is passed through `redact` (credential shapes by
 * default; the runner passes its Redactor): a run that read `.env` must not post its values.
 */
export function buildEscalationPayload(
  chore: { id: string; name: string },
  run: ChoreRunRecord,
  workspace?: string,
  redact: (text: string) => string = redactCredentials,
): EscalationPayload {
  const payload: EscalationPayload = {
    type: 'tasklane.chore_escalation',
    version: 1,
    chore: { id: chore.id, name: chore.name },
    runId: run.runId,
    status: run.status,
    reason: run.reason ?? `run ended ${run.status}`,
    usage: { ...run.usage },
    lastSteps: run.steps.slice(-5).map((s) => ({ name: s.name, status: s.status, durationMs: s.durationMs, args: short(s.args), result: short(s.result) })),
    startedAt: new Date(run.startedAt).toISOString(),
    endedAt: run.endedAt === null ? null : new Date(run.endedAt).toISOString(),
    ...(workspace ? { workspace } : {}),
  };
  return { ...payload, reason: redact(payload.reason), lastSteps: payload.lastSteps.map((s) => ({ ...s, args: redact(s.args), result: redact(s.result) })) };
}

/**
 * The payload telling that `run` waits for the review of `approval`. The run itself has not ended:
 * the status says what a person is asked for, and the link takes them to the proposal.
 */
export function buildReviewPayload(
  chore: { id: string; name: string },
  run: ChoreRunRecord,
  approval: ReviewRequest,
  workspace?: string,
  redact: (text: string) => string = redactCredentials,
): EscalationPayload {
  const base = buildEscalationPayload(chore, run, workspace, redact);
  const summary = redact(approval.summary);
  return { ...base, status: 'awaiting_review', reason: `waiting for your review: ${summary}`, approval: { id: approval.id, summary, link: approval.link } };
}

/**
 * The payload telling that `run` parked at its budget and waits for a person to resume it. The
 * run has not ended: the status says it is paused, the reason what it reached, and `pause` how to
 * continue.
 */
export function buildPausePayload(
  chore: { id: string; name: string },
  run: ChoreRunRecord,
  pause: BudgetPauseRequest,
  workspace?: string,
  redact: (text: string) => string = redactCredentials,
): EscalationPayload {
  const base = buildEscalationPayload(chore, run, workspace, redact);
  const message = redact(pause.message);
  return { ...base, status: 'paused_at_budget', reason: `paused at budget: ${message}`, pause: { message, grants: { ...pause.grants }, link: pause.link } };
}

/** One line for subjects and notification previews. */
export function escalationTitle(p: EscalationPayload): string {
  return `Tasklane chore "${p.chore.name}" ${p.status.replace(/_/g, ' ')}${p.workspace ? ` in ${p.workspace}` : ''}`;
}

/** A budget as one line ("10 iterations, 1000000 input tokens, $1.00, 600 s"). */
export function budgetLine(b: ChoreBudget): string {
  return `${b.maxIterations} iterations, ${b.maxInputTokens} input tokens, $${b.maxCostUsd.toFixed(2)}, ${b.maxSeconds} s`;
}

/** How to continue a paused run, in one sentence for every channel. */
function resumeSentence(pause: BudgetPauseRequest): string {
  return `Open the link in VS Code to resume it: it shows the run's task and asks you first; resuming grants another budget of the chore's size (${budgetLine(pause.grants)}) on top of what it used. Resume in the Chores view or Continue on the task does the same; Cancel ends it.`;
}

export function usageLine(u: ChoreUsageTotals): string {
  return `${u.iterations} iterations, ${Math.round(u.elapsedMs / 1000)} s, ${promptTokens(u)} input / ${u.outputTokens} output tokens, ${costText(u.costUsd, u.costEstimated, 4)}`;
}

/**
 * Slack Block Kit message for an incoming webhook; `text` is the notification fallback. Every
 * value that is not Tasklane's own (the chore's name and id, the reason, the steps' names and
 * results, which the model and the repository write) goes through `forSlack`, so `<!channel>`
 * or `<https://x|Open the proposal in VS Code>` arrive as text (review 2026-12c finding 9).
 * Tasklane's own links are the only `<url|text>` in the message.
 */
export function slackMessage(p: EscalationPayload): Record<string, unknown> {
  const steps = p.lastSteps.length
    ? p.lastSteps
        .map(
          (s) =>
            `• \`${forSlack(s.name)}\` ${forSlack(s.status)}${s.durationMs !== null ? ` (${s.durationMs} ms)` : ''}${s.result ? `: ${forSlack(s.result.replace(/\s+/g, ' ').slice(0, 120))}` : ''}`,
        )
        .join('\n')
    : '_no steps recorded_';
  return {
    text: `${forSlack(escalationTitle(p))}: ${forSlack(p.reason)}${p.approval ? ` ${p.approval.link}` : ''}${p.pause ? ` ${p.pause.link}` : ''}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: escalationTitle(p).slice(0, 150) } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Chore*\n${forSlack(p.chore.name)} (\`${forSlack(p.chore.id)}\`)` },
          { type: 'mrkdwn', text: `*Status*\n${p.status}` },
          { type: 'mrkdwn', text: `*Run*\n${p.runLink ? `<${p.runLink}|${forSlack(p.runId)}>` : `\`${forSlack(p.runId)}\``}` },
          { type: 'mrkdwn', text: `*Started*\n${p.startedAt}` },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `*Reason*\n${forSlack(p.reason.slice(0, 2800))}` } },
      ...(p.approval
        ? [{ type: 'section', text: { type: 'mrkdwn', text: `*Review*\n<${p.approval.link}|Open the proposal in VS Code> (approving there resumes the run)` } }]
        : []),
      ...(p.pause
        ? [{ type: 'section', text: { type: 'mrkdwn', text: `*Continue*\n<${p.pause.link}|Resume it in VS Code>. ${resumeSentence(p.pause)}` } }]
        : []),
      { type: 'section', text: { type: 'mrkdwn', text: `*Last steps*\n${steps.slice(0, 2900)}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Usage: ${usageLine(p.usage)}` }] },
    ],
  };
}

/** Plain-text email body. */
export function emailText(p: EscalationPayload): string {
  const steps = p.lastSteps.map(
    (s, i) => `  ${i + 1}. ${s.name} [${s.status}]${s.durationMs !== null ? ` ${s.durationMs} ms` : ''}\n     args: ${s.args}\n     result: ${s.result}`,
  );
  return [
    escalationTitle(p),
    '',
    `Chore:   ${p.chore.name} (${p.chore.id})`,
    `Run:     ${p.runId}`,
    `Status:  ${p.status}`,
    `Reason:  ${p.reason}`,
    `Started: ${p.startedAt}`,
    `Ended:   ${p.endedAt ?? '-'}`,
    `Usage:   ${usageLine(p.usage)}`,
    '',
    'Last steps:',
    ...(steps.length ? steps : ['  (none)']),
    '',
    ...(p.approval ? [`Review it in VS Code (approving or rejecting there resumes the run where it waits):`, `  ${p.approval.link}`, ''] : []),
    ...(p.pause ? [`How to continue: ${resumeSentence(p.pause)}`, `  ${p.pause.link}`, ''] : []),
    p.runLink ? `The run's full trace: ${p.runLink}` : 'Open the Tasklane sidebar in VS Code to see the full trace and any proposals waiting for review.',
  ].join('\n');
}

function short(text: string): string {
  return text.length > stepTextChars ? `${text.slice(0, stepTextChars)}…` : text;
}
