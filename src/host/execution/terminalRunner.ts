import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import { commandEnvironment } from '../../core/security/redact';
import type { CommandResult } from '../../core/approval/commandApproval';

/** Output kept for the model: this much from the start and this much from the end. */
const HEAD_CHARS = 6000;
const TAIL_CHARS = 6000;

/** Keeps the head and the tail of a stream, counting what falls in between, so memory stays bounded. */
export class BoundedOutput {
  private head = '';
  private tail = '';
  private dropped = 0;

  push(text: string): void {
    if (this.head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > TAIL_CHARS) {
      this.dropped += this.tail.length - TAIL_CHARS;
      this.tail = this.tail.slice(-TAIL_CHARS);
    }
  }

  result(): { output: string; truncatedChars: number } {
    const output = this.dropped > 0 ? `${this.head}\n…\n${this.tail}` : this.head + this.tail;
    return { output, truncatedChars: this.dropped };
  }
}

function shellFor(command: string): { file: string; args: string[] } {
  if (process.platform === 'win32') return { file: process.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', command] };
  return { file: process.env.SHELL || '/bin/sh', args: ['-c', command] };
}

function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    // Detached: the command is a process-group leader, so its children go too.
    if (process.platform === 'win32') child.kill();
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Runs one shell command in a terminal the user can see: a Pseudoterminal mirrors the process's
 * output as it comes, Ctrl+C or closing the terminal cancels it, and the caller gets the exit code
 * and the bounded output. The process starts at once (not when the terminal is first shown), so a
 * hidden panel cannot stall the agent.
 */
export function runInTerminal(command: string, options: { cwd: string; timeoutMs: number; signal?: AbortSignal; hiddenEnv?: readonly string[] }): Promise<CommandResult> {
  const started = Date.now();
  const writeEmitter = new vscode.EventEmitter<string>();
  const closeEmitter = new vscode.EventEmitter<number | void>();
  const pendingOutput: string[] = [];
  let opened = false;
  const show = (text: string) => {
    const crlf = text.replace(/\r?\n/g, '\r\n');
    if (opened) writeEmitter.fire(crlf);
    else pendingOutput.push(crlf);
  };
  let cancelled = false;
  let timedOut = false;
  const { file, args } = shellFor(command);
  const child = spawn(file, args, { cwd: options.cwd, detached: process.platform !== 'win32', env: commandEnvironment(process.env, options.hiddenEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  const cancel = () => {
    cancelled = true;
    killTree(child);
  };
  const pty: vscode.Pseudoterminal = {
    onDidWrite: writeEmitter.event,
    onDidClose: closeEmitter.event,
    open: () => {
      opened = true;
      for (const text of pendingOutput.splice(0)) writeEmitter.fire(text);
    },
    close: () => {
      if (child.exitCode === null) cancel();
    },
    handleInput: (data) => {
      if (data === '\x03') {
        show('^C\n');
        cancel();
      }
    },
  };
  const terminal = vscode.window.createTerminal({ name: `Tasklane: ${command.slice(0, 40)}`, pty, isTransient: true });
  terminal.show(true);
  show(`$ ${command}\n`);
  const output = new BoundedOutput();
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output.push(text);
    show(text);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const timer = setTimeout(() => {
    timedOut = true;
    show(`\n[Tasklane stopped it after ${Math.round(options.timeoutMs / 1000)} s]\n`);
    killTree(child);
  }, options.timeoutMs);
  options.signal?.addEventListener('abort', cancel, { once: true });
  return new Promise<CommandResult>((resolve) => {
    let settled = false;
    const finish = (exitCode: number | null, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', cancel);
      show(error ? `\n[could not run: ${error}]\n` : `\n[exit code ${exitCode ?? 'none'}]\n`);
      resolve({ exitCode, ...output.result(), timedOut, cancelled: cancelled && !timedOut, durationMs: Date.now() - started, error });
    };
    child.once('error', (error) => finish(null, error.message));
    child.once('close', (code) => finish(timedOut || cancelled ? null : code));
  });
}

