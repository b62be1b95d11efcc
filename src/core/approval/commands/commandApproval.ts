/**
 * Command and task approvals (docs/DESIGN.md §6): a terminal command or a VS Code task the agent wants
 * to run, waiting for the user's decision. They live in their own table next to the change sets'
 * `approvals` table, because that table's rows are validated as change sets and a command row
 * there would read as a damaged change set.
 */
import * as z from 'zod/v4';
import type { Clock } from '../../ports';
import { SHELL_CONSTRUCT_IDS } from '../../../shared/approvalReasons';
import type { ApprovalReason } from '../../../shared/approvalReasons';
import { decodeRow, decodeRows } from '../../store/decodeRow';
import type { DurableRowError } from '../../store/decodeRow';
import type { DurableDb, SqlValue } from '../../store/types';

/** `command`: a shell command line; `task`: a VS Code task by name; `mcp`: an MCP tool call (`server/tool`). */
export type CommandKind = 'command' | 'task' | 'mcp';

/** pending → running → done, or pending → rejected. `running` survives a crash only as "interrupted". */
export type CommandApprovalStatus = 'pending' | 'running' | 'done' | 'rejected';

/** What running a command or a task produced, as the model sees it. */
export interface CommandResult {
  /** Null when the process was killed (timeout, cancel) or never started. */
  exitCode: number | null;
  /** Combined stdout/stderr, bounded (head and tail kept); empty for VS Code tasks (their output stays in their terminal). */
  output: string;
  /** Characters dropped from the middle of the output to keep it bounded. */
  truncatedChars: number;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** Set when it could not start at all (no such task, shell missing). */
  error?: string;
}

/** One command or task waiting for (or past) the user's decision. */
export interface CommandApproval {
  id: string;
  taskId: string;
  sessionId: string;
  kind: CommandKind;
  /** The exact command line, the task's name, or `server/tool` for an MCP call. */
  command: string;
  /** MCP calls: the tool's arguments as JSON text, shown on the card and sent as approved. */
  input?: string;
  /** MCP calls: the server's hints (read-only, destructive), shown on the card; they never skip the ask. */
  hints?: string[];
  /** Why it asks (not allowlisted, contains `&&`…), in English for the model and the log. */
  reason: string;
  /** The same as a code and values, which the card words in the person's language (absent on rows stored before it). */
  why?: ApprovalReason;
  timeoutMs: number;
  status: CommandApprovalStatus;
  createdAt: number;
  /** The user's reason for rejecting. */
  rejectReason?: string;
  result?: CommandResult;
}

const resultSchema = z.object({
  exitCode: z.number().nullable(),
  output: z.string(),
  truncatedChars: z.number(),
  timedOut: z.boolean(),
  cancelled: z.boolean(),
  durationMs: z.number(),
  error: z.string().optional(),
});

/**
 * The command policy's reason codes. A code this version does not know (a row written by a newer
 * one) decodes as absent rather than losing the approval: the card then shows the English `reason`.
 */
const whySchema = z
  .union([
    z.object({ code: z.literal('commandEmpty') }),
    z.object({ code: z.literal('shellConstruct'), construct: z.enum(SHELL_CONSTRUCT_IDS) }),
    z.object({ code: z.literal('commandNotAllowed') }),
    z.object({ code: z.literal('mcpToolNotAllowed'), tool: z.string() }),
  ])
  .optional()
  .catch(undefined);

const approvalSchema = z.object({
  id: z.string().min(1),
  taskId: z.string(),
  sessionId: z.string(),
  kind: z.enum(['command', 'task', 'mcp']),
  command: z.string(),
  input: z.string().optional(),
  hints: z.array(z.string()).optional(),
  reason: z.string(),
  why: whySchema,
  timeoutMs: z.number(),
  status: z.enum(['pending', 'running', 'done', 'rejected']),
  createdAt: z.number(),
  rejectReason: z.string().optional(),
  result: resultSchema.optional(),
});

/** Durable home of command approvals; writes are durable before they resolve. */
export interface CommandApprovalStore {
  insert(approval: CommandApproval): Promise<void>;
  /** Compare-and-set on the status: false when someone else decided first (palette vs sidebar). */
  update(approval: CommandApproval, expected: CommandApprovalStatus): Promise<boolean>;
  load(id: string): Promise<CommandApproval | undefined>;
  /** Oldest first; all statuses unless given. */
  list(status?: CommandApprovalStatus): Promise<CommandApproval[]>;
  delete(id: string): Promise<void>;
}

/** The store on the hot database's `command_approvals` table (schema migration 2). */
export class DbCommandApprovalStore implements CommandApprovalStore {
  constructor(
    private readonly db: DurableDb,
    private readonly clock: Clock,
    /** Told about each row a list leaves out because it does not decode (its id and field). */
    private readonly report: (error: DurableRowError) => void = () => {},
  ) {}

  async insert(approval: CommandApproval): Promise<void> {
    this.db.mutate('INSERT INTO command_approvals (id, task_id, status, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
      approval.id,
      approval.taskId,
      approval.status,
      JSON.stringify(approval),
      approval.createdAt,
      this.clock.now(),
    ]);
    await this.db.commit();
  }

  async update(approval: CommandApproval, expected: CommandApprovalStatus): Promise<boolean> {
    const { changes } = this.db.mutate('UPDATE command_approvals SET status = ?, data = ?, updated_at = ? WHERE id = ? AND status = ?', [
      approval.status,
      JSON.stringify(approval),
      this.clock.now(),
      approval.id,
      expected,
    ]);
    if (changes === 0) return false;
    await this.db.commit();
    return true;
  }

  async load(id: string): Promise<CommandApproval | undefined> {
    const [row] = this.db.query('SELECT id, data FROM command_approvals WHERE id = ?', [id]);
    return row && parse(row.id, row.data);
  }

  async list(status?: CommandApprovalStatus): Promise<CommandApproval[]> {
    const rows =
      status === undefined
        ? this.db.query('SELECT id, data FROM command_approvals ORDER BY created_at, id')
        : this.db.query('SELECT id, data FROM command_approvals WHERE status = ? ORDER BY created_at, id', [status]);
    // A damaged row is reported and left out; the waiting task can be cancelled and asked again.
    return decodeRows(rows, (row) => parse(row.id, row.data), this.report);
  }

  async delete(id: string): Promise<void> {
    const { changes } = this.db.mutate('DELETE FROM command_approvals WHERE id = ?', [id]);
    if (changes > 0) await this.db.commit();
  }
}

/** A `command_approvals` row's data; throws DurableRowError naming the approval and the field. */
function parse(id: SqlValue, data: SqlValue): CommandApproval {
  return decodeRow(approvalSchema, 'command approval', data, String(id));
}
