/**
 * The process half of running a command (no VS Code API, so the benchmark and tests run it as
 * is): a shell child in its own process group, its output bounded, killed as a group on timeout,
 * on the caller's abort (Stop / Cancel of the task) or on request.
 */
import { commandEnvironment } from '../../core/security/redact';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { CommandResult } from '../../core/approval/commands/commandApproval';

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

export function shellFor(command: string): { file: string; args: string[] } {
  if (process.platform === 'win32') return { file: process.env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', command] };
  return { file: process.env.SHELL || '/bin/sh', args: ['-c', command] };
}

export function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    // Detached: the command is a process-group leader, so its children go too.
    if (process.platform === 'win32') child.kill();
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Why a run ended early; the terminal says it in these words. */
export type StopReason = 'timeout' | 'stopped' | 'cancelled';

export interface ChildRun {
  readonly pid: number | undefined;
  /** Resolves once the process has exited and its output is closed. */
  readonly result: Promise<CommandResult>;
  /** Kills the process group (Ctrl+C, closing the terminal). */
  cancel(): void;
}

/**
 * Starts `command` under the shell in `cwd`. `onOutput` sees every chunk (the terminal mirrors
 * it) and `onStop` why it was stopped early. The result resolves after the child is gone.
 */
export function startChild(
  command: string,
  options: {
    cwd: string;
    timeoutMs: number;
    signal?: AbortSignal;
    hiddenEnv?: readonly string[];
    onOutput?: (text: string) => void;
    onStop?: (reason: StopReason) => void;
  },
): ChildRun {
  const started = Date.now();
  let cancelled = false;
  let timedOut = false;
  const { file, args } = shellFor(command);
  const child = spawn(file, args, {
    cwd: options.cwd,
    detached: process.platform !== 'win32',
    env: commandEnvironment(process.env, options.hiddenEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cancel = (reason: StopReason = 'cancelled') => {
    if (child.exitCode !== null || cancelled || timedOut) return;
    if (reason === 'timeout') timedOut = true;
    else cancelled = true;
    options.onStop?.(reason);
    killTree(child);
  };
  const output = new BoundedOutput();
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output.push(text);
    options.onOutput?.(text);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const timer = setTimeout(() => cancel('timeout'), options.timeoutMs);
  const onAbort = () => cancel('stopped');
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const result = new Promise<CommandResult>((resolve) => {
    let settled = false;
    const finish = (exitCode: number | null, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ exitCode, ...output.result(), timedOut, cancelled: cancelled && !timedOut, durationMs: Date.now() - started, error });
    };
    child.once('error', (error) => finish(null, error.message));
    child.once('close', (code) => finish(timedOut || cancelled ? null : code));
  });
  return { pid: child.pid, result, cancel: () => cancel('cancelled') };
}
