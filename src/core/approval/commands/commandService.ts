/**
 * Runs the agent's terminal commands and VS Code tasks under the approval policy (docs/DESIGN.md §6).
 * An allowlisted command runs inside the action's turn; anything else becomes a pending approval
 * and the task sleeps (ctx.turn.needsApproval) until the user decides. On approval this service
 * runs it, brackets the run with a ledger intent/outcome, and wakes the task with an `approval`
 * trigger whose note carries the result; on rejection the note carries the user's reason.
 */
import { randomBytes } from 'node:crypto';
import type { Ledger } from '../../actions/ledger';
import type { Clock, Logger } from '../../ports';
import type { TriggerStore } from '../../store/types';
import type { CommandApproval, CommandApprovalStore, CommandKind, CommandResult } from './commandApproval';
import { askBecause, classifyCommand } from './commandPolicy';

/** Runs things for real: the host shows a terminal the user can see; tests use a fake. */
export interface CommandRunner {
  /**
   * Runs a shell command line in the workspace folder; never rejects for a failing command (exit
   * code in the result). `taskId` names the task that runs it: in VS Code a task's commands share
   * one terminal.
   */
  runCommand(command: string, options: { timeoutMs: number; signal?: AbortSignal; taskId?: string }): Promise<CommandResult>;
  /** Runs the VS Code task with this name; `error` in the result when there is no such task. */
  runTask(name: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CommandResult>;
}

/** Settings and workspace state, read at every call so a change applies at once (trust granted, allowlist edited). */
export interface CommandGate {
  /** `tasklane.approval.allowedCommands`: exact strings; a task is listed as `task:<name>`. */
  allowedCommands(): readonly string[];
  /** False in Restricted Mode (untrusted workspace): nothing runs. */
  trusted(): boolean;
  /**
   * The command lines this task may run without asking: the `commands:` its chore declares, which
   * the person saw when they enabled it (createEngine fills this in from the chore runner).
   */
  declared?(taskId: string): readonly string[];
  /**
   * The MCP servers this task's chore declares (`mcp:`) and the exact tools of each, as the person
   * saw them when they enabled it: a declared tool runs without asking, any other tool of a
   * declared server is refused (createEngine fills this in from the chore runner).
   */
  declaredMcp?(taskId: string): Readonly<Record<string, readonly string[]>>;
  /**
   * Nobody can answer an approval (a chore run on the command line): a command that would ask is
   * refused with the reason instead of waiting forever.
   */
  unattended?: boolean;
}

/** Calls an MCP tool for an approved (or allowlisted) request; see src/core/mcp. */
export interface McpCallPort {
  call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal; onProgress?: (note: string) => void },
  ): Promise<CommandResult>;
  /** True when the server says the tool only reads: then no ledger entry (nothing to reconcile). */
  readOnly(server: string, tool: string): boolean;
}

export interface CommandServiceDeps {
  store: CommandApprovalStore;
  runner: CommandRunner;
  /** MCP tool calls go through the same approval, ledger and wake-up as commands. */
  mcp?: McpCallPort;
  gate: CommandGate;
  ledger: Ledger;
  triggers: TriggerStore;
  clock: Clock;
  logger: Logger;
  /** Told about every change of an approval (the sidebar patches the card); `undefined` approval: removed. */
  onDidChange?: (id: string, approval: CommandApproval | undefined) => void;
}

/** The allowlist key of a VS Code task: distinct from any command line, so allowing `build` the command does not allow the task. */
export function taskAllowlistKey(name: string): string {
  return `task:${name}`;
}

/** The allowlist key of one MCP tool of one server: `mcp:<server>/<tool>`, exact. */
export function mcpAllowlistKey(serverAndTool: string): string {
  return `mcp:${serverAndTool}`;
}

function allowlistKey(kind: CommandKind, command: string): string {
  return kind === 'task' ? taskAllowlistKey(command) : kind === 'mcp' ? mcpAllowlistKey(command) : command;
}

/** How a request is named to the person and the model. */
export function describeRequest(kind: CommandKind, command: string): string {
  return kind === 'task' ? `task '${command}'` : kind === 'mcp' ? `MCP tool ${command}` : `\`${command}\``;
}

/** What the model reads back; the output is already bounded by the runner. */
export function describeResult(kind: CommandKind, command: string, result: CommandResult): string {
  const what = describeRequest(kind, command);
  if (result.error) return `${what} could not run: ${result.error}`;
  if (kind === 'mcp') {
    const cut = result.truncatedChars > 0 ? `\n(${result.truncatedChars} characters cut from the end)` : '';
    return `${what} ${result.exitCode === 0 ? 'returned' : 'returned an error'}:\n${result.output || '(no content)'}${cut}`;
  }
  const how = result.timedOut
    ? `was stopped after the ${Math.round(result.durationMs / 1000)} s timeout`
    : result.cancelled
      ? 'was cancelled by the user'
      : `exited with code ${result.exitCode}`;
  const cut = result.truncatedChars > 0 ? `\n(${result.truncatedChars} characters cut from the middle of the output)` : '';
  const output = kind === 'task' ? '' : result.output.trim() ? `\noutput:\n${result.output}${cut}` : '\n(no output)';
  return `${what} ${how} in ${Math.round(result.durationMs)} ms.${output}`;
}

export const RESTRICTED_MESSAGE =
  'Restricted Mode: this workspace is not trusted, so Tasklane cannot edit files, run commands or tasks, or run chores. Tell the user what you would do and that they can trust the folder (Manage Workspace Trust in the Tasklane sidebar) to let you do it.';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 30 * 60_000;

export class CommandService {
  private readonly running = new Map<string, AbortController>();
  /** Every run in progress, by task: Cancel/Stop of the task kills them (see stopTask). */
  private readonly byTask = new Map<string, Set<{ controller: AbortController; done: Promise<unknown> }>>();

  constructor(private readonly deps: CommandServiceDeps) {}

  /**
   * The entry point of run_command / run_task. Returns either the result (ran at once) or the
   * pending approval the task must wait for.
   */
  async request(spec: {
    kind: CommandKind;
    command: string;
    taskId: string;
    sessionId: string;
    timeoutMs?: number;
    input?: string;
    hints?: string[];
    signal?: AbortSignal;
    /** An MCP tool's progress notes, while a call that runs at once (allowlisted, a chore's) runs. */
    onProgress?: (note: string) => void;
  }): Promise<{ ran: CommandResult } | { pending: CommandApproval }> {
    if (!this.deps.gate.trusted()) throw new Error(RESTRICTED_MESSAGE);
    const command = spec.command.trim();
    const timeoutMs = Math.min(Math.max(spec.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1000), MAX_TIMEOUT_MS);
    const allowKey = allowlistKey(spec.kind, command);
    // An MCP key is matched exactly; the shell rules (chaining, redirects) are about command lines.
    const declared = spec.kind === 'command' ? (this.deps.gate.declared?.(spec.taskId) ?? []) : [];
    const mcpDeclared = spec.kind === 'mcp' ? this.deps.gate.declaredMcp?.(spec.taskId) : undefined;
    const [server = '', tool = ''] = spec.kind === 'mcp' ? splitMcp(command) : [];
    const serverTools = mcpDeclared?.[server];
    if (serverTools && !serverTools.includes(tool)) {
      const named = serverTools.map((t) => `${server}/${t}`).join(', ');
      throw new Error(
        `${describeRequest(spec.kind, command)} was refused: this task's chore declares only ${named} of the MCP server ${server} (mcp: in .tasklane/chores.yaml). Use a declared tool, or tell the user the chore needs ${tool} declared.`,
      );
    }
    const byChore = serverTools !== undefined || (declared.length > 0 && classifyCommand(command, declared).decision === 'auto');
    const verdict = byChore
      ? ({ decision: 'auto' } as const)
      : spec.kind === 'mcp'
        ? this.deps.gate.allowedCommands().includes(allowKey)
          ? ({ decision: 'auto' } as const)
          : askBecause({ code: 'mcpToolNotAllowed', tool: allowKey })
        : classifyCommand(allowKey, this.deps.gate.allowedCommands());
    if (verdict.decision === 'auto') {
      this.deps.logger.info('ACTION', `${spec.kind} ${command} is ${byChore ? "declared by the task's chore" : 'allowlisted'}: running without asking`);
      return { ran: await this.execute(spec.taskId, spec.kind, command, timeoutMs, undefined, spec.input, spec.signal, spec.onProgress) };
    }
    if (this.deps.gate.unattended) {
      const mcpTools = Object.entries(mcpDeclared ?? {}).flatMap(([name, tools]) => tools.map((t) => `${name}/${t}`));
      const may =
        spec.kind === 'mcp'
          ? mcpTools.length
            ? `It may call exactly the MCP tools ${mcpTools.join(', ')}.`
            : 'Its chore declares no MCP tools.'
          : declared.length
            ? `It may run exactly: ${declared.map((c) => `\`${c}\``).join(', ')}.`
            : 'Its chore declares no commands.';
      throw new Error(`${describeRequest(spec.kind, command)} was refused: nobody is here to approve it in this unattended run (${verdict.reason}). ${may}`);
    }
    const approval: CommandApproval = {
      id: `cmd-${this.deps.clock.now().toString(36)}${randomBytes(4).toString('hex')}`,
      taskId: spec.taskId,
      sessionId: spec.sessionId,
      kind: spec.kind,
      command,
      ...(spec.input !== undefined ? { input: spec.input } : {}),
      ...(spec.hints?.length ? { hints: spec.hints } : {}),
      reason: verdict.reason,
      why: verdict.why,
      timeoutMs,
      status: 'pending',
      createdAt: this.deps.clock.now(),
    };
    await this.deps.store.insert(approval);
    this.deps.onDidChange?.(approval.id, approval);
    this.deps.logger.info('ACTION', `${spec.kind} ${command} waits for approval ${approval.id}: ${verdict.reason}`);
    return { pending: approval };
  }

  pending(): Promise<CommandApproval[]> {
    return this.deps.store.list('pending');
  }

  /** Pending and running ones: what the sidebar shows. */
  async open(): Promise<CommandApproval[]> {
    return (await this.deps.store.list()).filter((a) => a.status === 'pending' || a.status === 'running');
  }

  async owns(id: string): Promise<boolean> {
    return (await this.deps.store.load(id)) !== undefined;
  }

  /**
   * Runs an approved command and wakes the task with its result. Resolves once the task is woken.
   * Throws (nothing run) if it is not pending, in Restricted Mode, or the store is not durable.
   */
  async approve(id: string): Promise<CommandResult> {
    if (!this.deps.gate.trusted()) throw new Error(RESTRICTED_MESSAGE);
    const approval = await this.deps.store.load(id);
    if (!approval) throw new Error(`There is no command approval ${id}; it may have been decided already.`);
    if (approval.status !== 'pending') throw new Error(`Command approval ${id} is ${approval.status}, not pending; nothing was run.`);
    const runningState: CommandApproval = { ...approval, status: 'running' };
    if (!(await this.deps.store.update(runningState, 'pending'))) throw new Error(`Command approval ${id} was decided elsewhere first; nothing was run twice.`);
    this.deps.onDidChange?.(id, runningState);
    let result: CommandResult;
    try {
      result = await this.execute(approval.taskId, approval.kind, approval.command, approval.timeoutMs, id, approval.input);
    } catch (error) {
      // Refused before running (store not durable): back to pending so the user can retry later.
      await this.deps.store.update(approval, 'running');
      this.deps.onDidChange?.(id, approval);
      throw error;
    }
    const done: CommandApproval = { ...runningState, status: 'done', result };
    await this.deps.store.update(done, 'running');
    await this.wake(done, 'approved', describeResult(approval.kind, approval.command, result));
    return result;
  }

  /** Rejects a pending approval; the task is told the reason. */
  async reject(id: string, reason?: string): Promise<void> {
    const approval = await this.deps.store.load(id);
    if (!approval) throw new Error(`There is no command approval ${id}; it may have been decided already.`);
    const rejected: CommandApproval = { ...approval, status: 'rejected', rejectReason: reason?.trim() || undefined };
    if (!(await this.deps.store.update(rejected, 'pending')))
      throw new Error(`Command approval ${id} is ${approval.status}, not pending; it can no longer be rejected.`);
    const what = describeRequest(approval.kind, approval.command);
    await this.wake(
      rejected,
      'rejected',
      `The user rejected ${what}${rejected.rejectReason ? `: ${rejected.rejectReason}` : ' without giving a reason'}. It was not run.`,
    );
  }

  /**
   * Stops every command of a task that runs now (the task was cancelled or stopped) and resolves
   * once their runners returned, i.e. the child processes are gone.
   */
  async stopTask(taskId: string): Promise<void> {
    // Its pending approvals go too: approving a command of a task that no longer exists would
    // run something nobody is waiting for.
    for (const approval of await this.deps.store.list('pending')) {
      if (approval.taskId !== taskId) continue;
      const withdrawn: CommandApproval = { ...approval, status: 'rejected', rejectReason: 'the task was stopped' };
      if (!(await this.deps.store.update(withdrawn, 'pending'))) continue;
      await this.deps.store.delete(approval.id);
      this.deps.onDidChange?.(approval.id, undefined);
      this.deps.logger.info('ACTION', `approval ${approval.id} withdrawn: its task ${taskId} was stopped`);
    }
    const runs = [...(this.byTask.get(taskId) ?? [])];
    for (const run of runs) run.controller.abort();
    await Promise.all(runs.map((run) => run.done.catch(() => undefined)));
  }

  /** Stops a running approved command (the user pressed Cancel). */
  cancel(id: string): boolean {
    const controller = this.running.get(id);
    controller?.abort();
    return controller !== undefined;
  }

  /**
   * At start: a decided approval whose task was not woken yet is woken now (the trigger's dedup
   * key makes a repeat harmless); one that was running when the process died is reported as
   * interrupted, never run again (the ledger reconciliation tells the same story).
   */
  async recover(): Promise<void> {
    for (const approval of await this.deps.store.list()) {
      if (approval.status === 'done' && approval.result) {
        await this.wake(approval, 'approved', describeResult(approval.kind, approval.command, approval.result));
      } else if (approval.status === 'rejected') {
        await this.wake(
          approval,
          'rejected',
          `The user rejected \`${approval.command}\`${approval.rejectReason ? `: ${approval.rejectReason}` : ''}. It was not run.`,
        );
      } else if (approval.status === 'running') {
        await this.wake(
          approval,
          'approved',
          `\`${approval.command}\` was approved and started, but the extension restarted while it ran: it may have run, fully or in part, and it was not repeated. Check its effects before running it again.`,
        );
      }
    }
  }

  private async execute(
    taskId: string,
    kind: CommandKind,
    command: string,
    timeoutMs: number,
    approvalId?: string,
    input?: string,
    signal?: AbortSignal,
    onProgress?: (note: string) => void,
  ): Promise<CommandResult> {
    const action = kind === 'task' ? 'run_task' : kind === 'mcp' ? 'mcp_call' : 'run_command';
    const [server = '', tool = ''] = kind === 'mcp' ? splitMcp(command) : [];
    // A read-only MCP tool changes nothing to reconcile after a crash; everything else is irreversible.
    const ledgered = !(kind === 'mcp' && this.deps.mcp?.readOnly(server, tool));
    if (signal?.aborted) throw new Error(`Not running ${action}: the task was stopped.`);
    // Refuses (throws) when the store cannot commit: nothing irreversible runs without its intent on disk.
    const ledgerId = ledgered ? await this.deps.ledger.intent(taskId, action, { command, ...(input !== undefined ? { input } : {}), approvalId }) : undefined;
    const controller = new AbortController();
    // The turn's signal (Stop, Cancel) stops it like the card's Cancel does.
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    if (approvalId) this.running.set(approvalId, controller);
    let finish!: () => void;
    const entry = { controller, done: new Promise<void>((resolve) => (finish = resolve)) };
    const runs = this.byTask.get(taskId) ?? new Set();
    runs.add(entry);
    this.byTask.set(taskId, runs);
    let result: CommandResult;
    try {
      if (kind === 'mcp') {
        if (!this.deps.mcp) throw new Error('MCP servers are not available in this window.');
        result = await this.deps.mcp.call(server, tool, input ? (JSON.parse(input) as Record<string, unknown>) : {}, {
          timeoutMs,
          signal: controller.signal,
          ...(onProgress ? { onProgress } : {}),
        });
      } else {
        result =
          kind === 'task'
            ? await this.deps.runner.runTask(command, { timeoutMs, signal: controller.signal })
            : await this.deps.runner.runCommand(command, { timeoutMs, signal: controller.signal, taskId });
      }
    } catch (error) {
      result = {
        exitCode: null,
        output: '',
        truncatedChars: 0,
        timedOut: false,
        cancelled: controller.signal.aborted,
        durationMs: 0,
        error: (error as Error).message,
      };
    } finally {
      if (approvalId) this.running.delete(approvalId);
      signal?.removeEventListener('abort', onAbort);
      runs.delete(entry);
      if (!runs.size) this.byTask.delete(taskId);
      finish();
    }
    const ok = !result.error && result.exitCode === 0;
    if (ledgerId)
      await this.deps.ledger.outcome(ledgerId, ok ? 'done' : 'failed', {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        cancelled: result.cancelled,
        error: result.error,
      });
    this.deps.logger.info('ACTION', `${action} ${command}: ${result.error ?? `exit ${result.exitCode}`}`);
    return result;
  }

  private async wake(approval: CommandApproval, decision: 'approved' | 'rejected', note: string): Promise<void> {
    await this.deps.triggers.emit({
      source: 'approval',
      sessionId: approval.sessionId,
      payload: { approvalId: approval.id, decision, note },
      dedupKey: `approval:${approval.id}`,
    });
    // The trigger (durable) now carries the outcome: the row can leave the hot database.
    await this.deps.store.delete(approval.id);
    this.deps.onDidChange?.(approval.id, undefined);
  }
}

/** `server/tool` → [server, tool]; server names cannot hold `/`, tool names may. */
function splitMcp(command: string): [string, string] {
  const at = command.indexOf('/');
  return at < 0 ? [command, ''] : [command.slice(0, at), command.slice(at + 1)];
}
