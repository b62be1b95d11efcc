/**
 * Runs a chore's declared commands on the command line: one program with its arguments, no shell,
 * in the workspace folder (with the run's edits written in, see OverlayWorkspace.materialize), with
 * a scrubbed environment, in the sandbox of commandSandbox.ts (no network unless the chore lists
 * hosts, no sight of other processes), a cap on calls, a bounded output and a timeout. What may run
 * is decided before this (CommandService with an unattended gate: the chore's `commands:` or nothing).
 */
import { spawn } from 'node:child_process';
import type { CommandSandbox } from './commandSandbox';
import { parseCommandLine } from '../core/approval/commands/commandLine';
import type { CommandResult } from '../core/approval/commands/commandApproval';
import type { CommandRunner } from '../core/approval/commands/commandService';

/**
 * The variables a command inherits; everything else (model keys, tokens, TASKLANE_SECRET_*) stays
 * out. An allowlist, not a denylist: a secret under a name nobody thought of is not passed either.
 */
const PASSED_ENV =
  /^(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|TMPDIR|TEMP|TMP|CI|SYSTEMROOT|COMSPEC|PATHEXT|WINDIR|APPDATA|LOCALAPPDATA|USERPROFILE|PROGRAMFILES|NODE_ENV)$/i;

export function scrubbedEnv(env: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => value !== undefined && PASSED_ENV.test(name)));
}

export interface CliCommandRunnerOptions {
  /** The workspace folder: the commands' working directory. */
  cwd: string;
  /** Wraps every command (commandSandbox.ts), or says why none can run: the runner has no unsealed way. */
  sandbox: () => CommandSandbox | { problem: string };
  env: Readonly<Record<string, string | undefined>>;
  /** Called before each command: writes the run's edits into the folder. */
  beforeRun?: () => Promise<void>;
  /** Commands one run may start (default 30); the next is refused with the reason. */
  maxCalls?: number;
  /** Characters of output kept (head and tail; default 20,000). */
  maxOutputChars?: number;
  /** No command outlives the run: its `budget.maxSeconds`. */
  maxTimeoutMs?: number;
}

export function cliCommandRunner(options: CliCommandRunnerOptions): CommandRunner & { calls(): number } {
  const maxCalls = options.maxCalls ?? 30;
  const maxOutput = options.maxOutputChars ?? 20_000;
  const env = scrubbedEnv(options.env);
  let calls = 0;
  const failed = (error: string): CommandResult => ({ exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 0, error });
  return {
    calls: () => calls,
    async runTask(name) {
      return failed(`VS Code tasks do not run on the command line (task '${name}'); declare the command line the task runs instead.`);
    },
    async runCommand(line, { timeoutMs, signal }) {
      const parsed = parseCommandLine(line);
      if ('problem' in parsed) return failed(`\`${line}\` cannot run without a shell: ${parsed.problem}.`);
      if (calls >= maxCalls) return failed(`this run has used its ${maxCalls} command calls; finish with what you have.`);
      const sandbox = options.sandbox();
      if ('problem' in sandbox) return failed(`${sandbox.problem}.`);
      calls++;
      await options.beforeRun?.();
      const limit = Math.min(timeoutMs, options.maxTimeoutMs ?? timeoutMs);
      return run(sandbox.wrap(parsed.argv), { cwd: options.cwd, env, timeoutMs: limit, maxOutput, ...(signal ? { signal } : {}) });
    },
  };
}

function run(argv: string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; maxOutput: number; signal?: AbortSignal }): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    let output = '';
    let dropped = 0;
    let timedOut = false;
    let cancelled = false;
    const [program, ...args] = argv as [string, ...string[]];
    const child = spawn(program, args, { cwd: o.cwd, env: o.env, shell: false, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] });
    const kill = () => {
      try {
        // The whole group: a test runner's workers go with it.
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // Keep the head and the tail: the command's first lines and its verdict.
      if (output.length > o.maxOutput * 2) {
        const half = Math.floor(o.maxOutput / 2);
        dropped += output.length - o.maxOutput;
        output = `${output.slice(0, half)}${output.slice(-half)}`;
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, o.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    const finish = (exitCode: number | null, error?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      if (output.length > o.maxOutput) {
        const half = Math.floor(o.maxOutput / 2);
        dropped += output.length - o.maxOutput;
        output = `${output.slice(0, half)}${output.slice(-half)}`;
      }
      resolve({ exitCode, output, truncatedChars: dropped, timedOut, cancelled, durationMs: Date.now() - started, ...(error ? { error } : {}) });
    };
    child.on('error', (error) => finish(null, `${program} could not start: ${error.message}`));
    child.on('close', (code) => finish(timedOut || cancelled ? null : code));
  });
}
