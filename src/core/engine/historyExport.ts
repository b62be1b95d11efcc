/**
 * `Tasklane: Export Session`: a session's full trace for audit, as JSONL (one object per line:
 * the session, its tasks, every event of its stream, its approvals, ledger rows and usage) and as
 * Markdown for people. Reads hot state and archive alike; the events are read a page at a time.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { redactCredentials, redactDeep } from '../security/redact';
import type { Archive } from '../store/archive';
import type { DurableDb, Row } from '../store/types';
import type { EventStreams } from './eventLog';
import type { History } from './history';
import type { TaskEvent } from './types';

const PAGE = 1000;

export interface ExportDeps {
  history: History;
  streams: EventStreams;
  db: DurableDb;
  archive?: Archive;
  /**
   * The window's redactor: every exported row and line goes through it, task records and
   * approvals included (rows written before they were redacted at write time too).
   */
  redact?: (text: string) => string;
}

export interface ExportResult {
  jsonl: string;
  markdown: string;
  events: number;
}

export async function exportSession(deps: ExportDeps, sessionId: string, outDir: string): Promise<ExportResult> {
  const found = await deps.history.session(sessionId);
  if (!found) throw new Error(`Session ${sessionId} was not found in the hot state or the archive; search the history for it first.`);
  const { session, tasks } = found;
  const taskIds = tasks.map((t) => t.id);
  const rowsOf = (table: string, column: string, ids: string[]): Row[] =>
    ids.length ? deps.db.query(`SELECT * FROM ${table} WHERE ${column} IN (${ids.map(() => '?').join(', ')}) ORDER BY created_at`, ids) : [];
  const approvals = [...rowsOf('approvals', 'session_id', [sessionId]), ...(deps.archive?.bySession(sessionId, ['approval']).map((r) => r.row) ?? [])];
  const commandApprovals = [
    ...rowsOf('command_approvals', 'task_id', taskIds),
    ...taskIds.flatMap((id) => deps.archive?.byTask(id, ['command_approval']).map((r) => r.row) ?? []),
  ];
  const ledger = [...rowsOf('ledger', 'task_id', taskIds), ...taskIds.flatMap((id) => deps.archive?.byTask(id, ['ledger']).map((r) => r.row) ?? [])];

  // Pages back from the tail; only the collected events are held, not the file.
  const events: TaskEvent[] = [];
  for (let before: number | undefined; ;) {
    const page = await deps.streams.read(sessionId, { ...(before !== undefined ? { beforeSeq: before } : {}), limit: PAGE });
    if (page.length === 0) break;
    events.unshift(...page);
    before = page[0].seq;
    if (before <= 1) break;
  }

  await fs.mkdir(outDir, { recursive: true });
  const base = path.join(outDir, `tasklane-session-${sessionId}`);
  const redact = deps.redact ?? redactCredentials;
  const lines = [
    { type: 'session', session },
    ...tasks.map((task) => ({ type: 'task', task })),
    ...events.map((event) => ({ type: 'event', event })),
    ...approvals.map((row) => ({ type: 'approval', approval: parsed(row) })),
    ...commandApprovals.map((row) => ({ type: 'command_approval', approval: parsed(row) })),
    ...ledger.map((row) => ({ type: 'ledger', entry: row })),
    { type: 'usage', session: session.usage, tasks: Object.fromEntries(tasks.map((t) => [t.id, t.usage])) },
  ];
  const jsonl = `${base}.jsonl`;
  await fs.writeFile(jsonl, lines.map((l) => JSON.stringify(redactDeep(l, redact))).join('\n') + '\n', 'utf8');

  const md: string[] = [
    `# ${session.name}`,
    '',
    `Session \`${session.id}\`${found.archived ? ' (archived)' : ''}, last active ${iso(session.lastActivity)}.`,
    '',
  ];
  md.push('## Usage', '', '| | input | output | cache read | cache write | cost (USD) |', '| --- | --- | --- | --- | --- | --- |');
  md.push(usageRow('session', session.usage));
  for (const t of tasks) md.push(usageRow(`task ${t.name}`, t.usage));
  md.push('');
  if (tasks.length) {
    md.push('## Tasks', '');
    for (const t of tasks)
      md.push(
        `- **${t.name}** (${t.status}, ${iso(t.createdAt)}${t.endedAt ? ` → ${iso(t.endedAt)}` : ''}): ${oneLine(t.instruction)}${t.finalSummary ? ` — ${oneLine(t.finalSummary)}` : ''}`,
      );
    md.push('');
  }
  md.push('## Trace', '');
  for (const e of events) md.push(eventLine(e));
  md.push('');
  if (approvals.length || commandApprovals.length) {
    md.push('## Approvals', '');
    for (const row of approvals) md.push(`- change set \`${row.id}\`: ${row.status} (${iso(Number(row.updated_at))})`);
    for (const row of commandApprovals) md.push(`- command \`${row.id}\`: ${row.status} (${iso(Number(row.updated_at))})`);
    md.push('');
  }
  if (ledger.length) {
    md.push('## Irreversible actions (ledger)', '');
    for (const row of ledger) md.push(`- \`${row.action}\` ${row.status} (${iso(Number(row.created_at))}): ${oneLine(String(row.outcome ?? row.intent))}`);
    md.push('');
  }
  const markdown = `${base}.md`;
  await fs.writeFile(markdown, redact(md.join('\n')), 'utf8');
  return { jsonl, markdown, events: events.length };
}

function parsed(row: Row): Record<string, unknown> {
  try {
    return { ...row, data: JSON.parse(String(row.data)) as unknown };
  } catch {
    return row;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 400);

function usageRow(
  label: string,
  u: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; cost: number; costEstimated?: boolean },
): string {
  return `| ${label} | ${u.inputTokens} | ${u.outputTokens} | ${u.cacheReadTokens} | ${u.cacheWriteTokens} | ${u.costEstimated ? `≈${u.cost.toFixed(4)} estimated` : u.cost.toFixed(4)} |`;
}

function eventLine(e: TaskEvent): string {
  const d = e.data;
  const at = iso(e.at);
  switch (e.kind) {
    case 'message':
      return `- ${at} **${String(d.role)}**: ${oneLine(String(d.text ?? ''))}`;
    case 'action_start':
      return `- ${at} action \`${String(d.name ?? d.action ?? '')}\` ${oneLine(JSON.stringify(d.input ?? {}))}`;
    case 'action_end':
      return `- ${at} → ${d.isError || d.error ? 'error' : 'ok'}: ${oneLine(String(d.output ?? d.result ?? d.error ?? ''))}`;
    default:
      return `- ${at} ${e.kind}: ${oneLine(String(d.text ?? JSON.stringify(d)))}`;
  }
}
