/**
 * The world the interleaving test drives: the real engine, store (sql.js + journal in a temp
 * dir) and command service, the real SDK clients against the scripted model server, a command
 * runner whose commands take as long as the test says (they end when released or aborted), and
 * a model policy that answers from what each request contains. A crash copies the storage dir
 * as it is on disk at that instant (what a killed process leaves), lets the old agent go, and
 * opens a new one over the copy.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandResult } from '../../../src/core/approval/commands/commandApproval';
import type { CommandRunner, CommandService } from '../../../src/core/approval/commands/commandService';
import type { TaskView } from '../../../src/core/engine/types';
import { LEASE_FILE } from '../../../src/core/store/storeFiles';
import type { ModelServer, RecordedRequest, ScriptStep } from '../../fixtures/modelServer';
import type { FakeClock } from '../../fakes/fakeClock';
import { createHarness } from './harness';
import type { Harness, Wire } from './harness';

/** mulberry32: small, seedable, good enough to pick schedule steps. */
export { mulberry32 as rng } from '../../support/seededRandom';

/** One command the fake runner is running or ran. */
export interface Run {
  command: string;
  world: number;
  state: 'running' | 'done' | 'cancelled';
  /** Ordinal of the run among all runs of the schedule. */
  n: number;
  finish(): void;
  /** The process died under it (a crash): it ends without a result anyone reads. */
  kill(): void;
}

/** Commands that run until the test finishes them or their signal fires (the "child" is then gone). */
export class GatedRunner implements CommandRunner {
  readonly runs: Run[] = [];
  constructor(private readonly world: () => number) {}

  runCommand(command: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CommandResult> {
    return new Promise((resolve) => {
      const result = (cancelled: boolean): CommandResult => ({
        exitCode: cancelled ? null : 0,
        output: cancelled ? '' : `OUTPUT of ${command}\n`,
        truncatedChars: 0,
        timedOut: false,
        cancelled,
        durationMs: 1,
      });
      const run: Run = {
        command,
        world: this.world(),
        state: 'running',
        n: this.runs.length,
        finish: () => {
          if (run.state !== 'running') return;
          run.state = 'done';
          resolve(result(false));
        },
        kill: () => undefined,
      };
      const abort = () => {
        if (run.state !== 'running') return;
        run.state = 'cancelled';
        resolve(result(true));
      };
      run.kill = abort;
      this.runs.push(run);
      if (options.signal?.aborted) abort();
      else options.signal?.addEventListener('abort', abort, { once: true });
    });
  }

  async runTask(name: string): Promise<CommandResult> {
    return { exitCode: 0, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 1, error: `no task ${name}` };
  }

  running(): Run[] {
    return this.runs.filter((r) => r.state === 'running');
  }
}

/** Names of the tools a wire request offers. */
export function toolNames(request: RecordedRequest): string[] {
  const tools = (request.body?.tools ?? []) as Array<{ name?: string; function?: { name?: string } }>;
  return tools.map((t) => t.name ?? t.function?.name ?? '');
}

export type RequestKind = 'conversation' | 'task' | 'router' | 'memory' | 'other';

export function requestKind(request: RecordedRequest): RequestKind {
  const names = toolNames(request);
  if (names.includes('save_memory')) return 'memory';
  if (names.includes('route_message')) return 'router';
  if (names.includes('task_end')) return 'task';
  if (names.includes('send_message')) return 'conversation';
  return 'other';
}

interface FlatMessage {
  role: string;
  text: string;
  toolCalls: number;
  /** Tool results in this message: [call id, content]. */
  results: Array<[string, string]>;
}

/** The request's messages in a wire-neutral shape (both formats). */
export function flatten(request: RecordedRequest): FlatMessage[] {
  const out: FlatMessage[] = [];
  for (const m of (request.body?.messages ?? []) as Array<Record<string, unknown>>) {
    const role = String(m.role);
    if (request.format === 'openai') {
      if (role === 'tool') {
        out.push({ role: 'tool', text: '', toolCalls: 0, results: [[String(m.tool_call_id), String(m.content)]] });
        continue;
      }
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.length : 0;
      out.push({ role, text: typeof m.content === 'string' ? m.content : '', toolCalls: calls, results: [] });
      continue;
    }
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : ((m.content ?? []) as Array<Record<string, unknown>>);
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => String(b.text))
      .join('\n');
    const calls = blocks.filter((b) => b.type === 'tool_use').length;
    const results = blocks
      .filter((b) => b.type === 'tool_result')
      .map((b): [string, string] => [String(b.tool_use_id), typeof b.content === 'string' ? b.content : JSON.stringify(b.content)]);
    out.push({ role: results.length ? 'tool' : role, text, toolCalls: calls, results });
  }
  return out;
}

export const tokensIn = (text: string): string[] => text.match(/\b[MR]\d+\b/g) ?? [];

/** The plan a task follows, fixed by its token (so every delivery of a turn decides alike). */
export function planFor(token: string): string[] {
  const n = Number(token.slice(1));
  const steps = ['cmd', 'approve', 'ask', 'wait', 'cmd'];
  const length = 1 + (n % 3);
  return Array.from({ length }, (_, i) => steps[(n * 7 + i * 3) % steps.length]!).concat('end');
}

/**
 * The scripted model: conversation turns answer the person's latest messages ("answer to M3 M4",
 * or start a task when one asks for it), task turns follow their plan (one step per turn), the
 * router always says "new", memory saves a line. Every answer is held at a fresh gate, part way
 * through its stream, until the schedule releases it.
 */
export function policy(request: RecordedRequest, gate: string, holdAfterChunks: number): ScriptStep {
  const kind = requestKind(request);
  const messages = flatten(request);
  const held = { gate, holdAfterChunks };
  if (kind === 'memory') return { toolCalls: [{ name: 'save_memory', arguments: { content: '# Memory\n- ok\n' } }] };
  if (kind === 'router') return { toolCalls: [{ name: 'route_message', arguments: { decision: 'new', reason: 'test' } }], ...held };
  if (kind === 'conversation') {
    // The person's lines after the last answer (a lateness notice is not one); with nothing new,
    // a model answers the last ones again (which is what a duplicate turn looks like).
    // Consecutive assistant lines arrive merged: a lateness notice followed by "[Started task …]"
    // is an answer (the task was started), one made of lateness notices alone is not.
    const isAnswer = (m: FlatMessage) => m.role === 'assistant' && m.text.replace(/\[This was scheduled for [^\]]*\]/g, '').trim() !== '';
    let end = messages.length;
    let start = messages.length;
    while (start > 0 && !isAnswer(messages[start - 1]!)) start--;
    if (start === messages.length) {
      end = start - 1;
      start = end;
      while (start > 0 && !isAnswer(messages[start - 1]!)) start--;
    }
    const tail = messages.slice(start, Math.max(start, end)).filter((m) => m.role === 'user');
    const tokens = [...new Set(tail.flatMap((m) => tokensIn(m.text)))];
    const wantsTask = tail
      .map((m) => m.text)
      .join(' ')
      .match(/\b(M\d+) please start a task\b/);
    if (wantsTask) {
      const token = wantsTask[1]!;
      return {
        toolCalls: [{ name: 'task_start', arguments: { name: `job ${token}`, instruction: `job ${token} plan:${planFor(token).join(',')}`, mode: 'simple' } }],
        ...held,
      };
    }
    return { toolCalls: [{ name: 'send_message', arguments: { text: `answer to ${tokens.join(' ') || 'nothing'}` } }], ...held };
  }
  if (kind === 'task') {
    const all = messages.map((m) => m.text).join('\n');
    const token = all.match(/job (M\d+) plan:/)?.[1] ?? 'M0';
    const plan = planFor(token);
    const done = messages.filter((m) => m.role === 'assistant' && m.toolCalls > 0).length;
    const step = plan[Math.min(done, plan.length - 1)];
    const call =
      step === 'cmd'
        ? { name: 'run_command', arguments: { command: `slow ${token}.${done}` } }
        : step === 'approve'
          ? { name: 'run_command', arguments: { command: `risky ${token}.${done}` } }
          : step === 'ask'
            ? { name: 'ask_user', arguments: { question: `question ${token}.${done}?` } }
            : step === 'wait'
              ? { name: 'wait', arguments: { seconds: 60, reason: 'test wait' } }
              : { name: 'task_end', arguments: { summary: `done ${token}` } };
    return { toolCalls: [call], ...held };
  }
  return { text: 'ok' };
}

export interface World {
  n: number;
  h: Harness;
  service: CommandService;
  tasks: Map<string, TaskView>;
}

/** Opens (or reopens, over `dir`) the agent with the command service wired like the host does. */
export async function openWorld(
  n: number,
  wire: Wire,
  server: ModelServer,
  runner: GatedRunner,
  clock: FakeClock,
  dir: string | undefined,
  tasks: Map<string, TaskView>,
): Promise<World> {
  const h = await createHarness({
    wire,
    server,
    clock,
    dir,
    // Wired as the host wires it: the engine's CommandService, its stop-on-cancel and recovery.
    // "slow …" commands are allowlisted (they run inside the turn); "risky …" ones need approval.
    commands: { runner, gate: { allowedCommands: () => SLOW_COMMANDS, trusted: () => true } },
    settings: { maxActionsPerTask: 5 },
    skillDirs: [],
  });
  const service = h.engine.commands;
  if (!service) throw new Error('the harness was built without commands');
  h.agent.views.onDidChange((c) => {
    if (c.type === 'task') tasks.set(c.task.id, c.task);
  });
  for (const t of h.agent.views.snapshot().tasks) tasks.set(t.id, t);
  return { n, h, service, tasks };
}

/** Every "slow" command a plan can ask for, allowlisted exactly (the allowlist has no prefixes). */
const SLOW_COMMANDS = Array.from({ length: 200 }, (_, t) => Array.from({ length: 12 }, (_, d) => `slow M${t}.${d}`)).flat();

/** Copies the storage as a killed process leaves it on disk; the dead owner's lease goes. */
export function crashCopy(dir: string): string {
  const copy = fs.mkdtempSync(path.join(path.dirname(dir), 'tasklane-crash-'));
  fs.cpSync(dir, copy, { recursive: true });
  fs.rmSync(path.join(copy, 'store', LEASE_FILE), { force: true });
  return copy;
}
