import * as vscode from 'vscode';
import type { CommandResult } from '../../core/approval/commands/commandApproval';
import { startChild } from './processRunner';

export { BoundedOutput } from './processRunner';

/** What runs one command: its cwd, its time limit, the turn's signal, the variables it must not see. */
export interface TerminalRunOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  hiddenEnv?: readonly string[];
  /** The task that runs it: its commands share one terminal (see {@link TaskTerminals}). */
  taskId?: string;
}

/** One terminal the person sees: a Pseudoterminal the commands of one task (or one command) write to. */
class CommandTerminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  private readonly pending: string[] = [];
  private opened = false;
  /** Cancels the commands running in it (Ctrl+C, or the person closing it). */
  private readonly running = new Set<() => void>();
  readonly terminal: vscode.Terminal;
  closed = false;

  constructor(name: string, onClosed: () => void) {
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      onDidClose: this.closeEmitter.event,
      open: () => {
        this.opened = true;
        for (const text of this.pending.splice(0)) this.writeEmitter.fire(text);
      },
      // The person closed it: what runs in it stops, and the next command opens a new one.
      close: () => {
        this.closed = true;
        for (const cancel of this.running) cancel();
        onClosed();
      },
      handleInput: (data) => {
        if (data !== '\x03' || this.running.size === 0) return;
        this.show('^C\n');
        for (const cancel of this.running) cancel();
      },
    };
    this.terminal = vscode.window.createTerminal({ name, pty, isTransient: true });
  }

  show(text: string): void {
    const crlf = text.replace(/\r?\n/g, '\r\n');
    if (this.opened) this.writeEmitter.fire(crlf);
    else this.pending.push(crlf);
  }

  /**
   * Runs `command` here: the process starts at once (not when the terminal is first shown), so a
   * hidden panel cannot stall the agent; Stop / Cancel of the task (the signal) kills its process
   * group, and the terminal says so.
   */
  async run(command: string, options: TerminalRunOptions): Promise<CommandResult> {
    this.show(`$ ${command}\n`);
    const run = startChild(command, {
      ...options,
      onOutput: (text) => this.show(text),
      onStop: (reason) => {
        if (reason === 'timeout') this.show(`\n[Tasklane stopped it after ${Math.round(options.timeoutMs / 1000)} s]\n`);
        else if (reason === 'stopped') this.show('\n[Tasklane stopped it: the task was stopped or cancelled]\n');
      },
    });
    const cancel = () => run.cancel();
    this.running.add(cancel);
    this.terminal.show(true);
    try {
      const result = await run.result;
      this.show(result.error ? `\n[could not run: ${result.error}]\n` : `\n[exit code ${result.exitCode ?? 'none'}]\n\n`);
      return result;
    } finally {
      this.running.delete(cancel);
    }
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.terminal.dispose();
    this.writeEmitter.dispose();
    this.closeEmitter.dispose();
  }
}

/**
 * The terminals the agent's commands run in: one per task, reused for each of its commands, as
 * Copilot's agent terminal is (the ux review counted more than ten "Tasklane: …" terminals after a
 * short walk, one per command). A task's terminal closes when the task ends ({@link closeTask});
 * when the person closes it, what runs in it stops and the task's next command opens a new one.
 * A command of no task (none today) gets a terminal of its own, closed by the person.
 *
 * Decision: commands a task runs at once share its terminal, their lines interleaved; each starts
 * with its `$ command` line. One terminal per command would bring back the clutter.
 */
export class TaskTerminals implements vscode.Disposable {
  private readonly byTask = new Map<string, CommandTerminal>();

  /** @param nameOf the task's name for the terminal's title, when known. */
  constructor(private readonly nameOf: (taskId: string) => string | undefined = () => undefined) {}

  run(command: string, options: TerminalRunOptions): Promise<CommandResult> {
    const { taskId } = options;
    if (taskId === undefined) return new CommandTerminal(`Tasklane: ${command.slice(0, 40)}`, () => undefined).run(command, options);
    let terminal = this.byTask.get(taskId);
    if (!terminal || terminal.closed) {
      const created: CommandTerminal = new CommandTerminal(`Tasklane: ${(this.nameOf(taskId) ?? command).slice(0, 40)}`, () => {
        if (this.byTask.get(taskId) === created) this.byTask.delete(taskId);
      });
      terminal = created;
      this.byTask.set(taskId, terminal);
    }
    return terminal.run(command, options);
  }

  /** The task ended: its terminal closes (its output stays in the task's rows and Details). */
  closeTask(taskId: string): void {
    const terminal = this.byTask.get(taskId);
    this.byTask.delete(taskId);
    terminal?.dispose();
  }

  /** The tasks that have a terminal open now. */
  openTasks(): string[] {
    return [...this.byTask.keys()];
  }

  dispose(): void {
    for (const taskId of [...this.byTask.keys()]) this.closeTask(taskId);
  }
}
