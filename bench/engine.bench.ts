// Engine benchmark (docs/DESIGN.md §10, issue #4), one JSON line per figure on stdout:
// - engine.turn_overhead: wall time of a task turn from claim to ack minus the time inside the
//   model call, with an instant in-process model, on the real durable store (journal + fsync) and
//   real event-stream files; median and p95, compared with the store's bare emit+claim+ack cycle
//   measured in the same run (the floor any turn pays); `cpu_ms` is the median CPU time of the
//   same spans (the process's, less the model's time).
// - engine.prompt_tokens: first request size (≈ chars/4) for conversation and for a task with the
//   core action set, the code actions of VS Code's language features, the git action, the built-in skill catalog and one chosen skill.
// - engine.stable_prefix_share: byte-identical prefix shared with the previous request, for each
//   request from turn 2 of a 20-turn task (median and minimum).
// - engine.cancel_latency: a task's turn runs a real allowlisted shell command (its own process
//   group, the host's process runner); from cancelTask() to the session showing idle and the
//   child process gone (median and p95), against the baseline of waiting for the turn to finish
//   (what Cancel amounted to before: the command ran to its end, here a 1 s one).
// - engine.verify_overhead: Tasklane's time around one round of a chore's `verify:` check beyond
//   the command's own run (bench/engineVerify.ts), against that run.
// - engine.stable_prefix_share (kind long_task): a 200-turn task with large reads across history
//   cuts (bench/engineLongTask.ts).
// - engine.prompt_tokens (kind task+mcp) and engine.stable_prefix_share (mcp): the same 20-turn
//   task with the tools of the reference MCP server @modelcontextprotocol/server-everything (a
//   real stdio process, its action set `mcp:everything`) offered, against the same task without
//   them (baseline) in the same run.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CodeIntelPort } from '../src/core/codeIntel/codeIntelPort';
import { createEngine } from '../src/core/createEngine';
import { ReadOnlyGit } from '../src/core/git/readOnlyGit';
import { startChild } from '../src/host/execution/processRunner';
import type { ModelRequest } from '../src/core/model/types';
import { systemClock } from '../src/core/ports';
import { Redactor } from '../src/core/security/redact';
import { commonPrefixShare, estimateTokens, serializeRequest } from '../src/core/prompts/requestBuilder';
import { openDurableDb } from '../src/core/store/durableDb';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { createTriggerStore } from '../src/core/store/triggerStore';
import { mcpActionSet, McpServers } from '../src/core/mcp/mcpServers';
import { parseMcpServers } from '../src/core/mcp/mcpConfig';
import { InstantModel } from '../test/fakes/instantModel';
import { MemoryWorkspace } from '../test/fakes/memoryWorkspace';
import { ClaimTimingLogger, emitLine, progressFor, round } from './support';
import { longTaskPrefix } from './engineLongTask';
import { verifyOverhead } from './engineVerify';

// The first WARMUP_TASKS tasks warm the code up and are not counted: V8 keeps optimizing the turn's
// code for about 80 turns (per-task medians 5.0, 1.7, 2.6, 2.0, then 1.5–1.7 ms from the fifth
// task on, at load average 1.5), and an extension host that has run for a while runs warm code.
// The store cycle it is compared with drops its first 20 of 200 for the same reason.
const WARMUP_TASKS = 4;
const TASKS = WARMUP_TASKS + Number(process.env.ENGINE_BENCH_TASKS ?? 6);
const TURNS = 20;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-engine-bench-'));

const progress = progressFor('engine');
function stats(samples: number[]): { median: number; p95: number; min: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: round(at(0.5)), p95: round(at(0.95)), min: round(sorted[0]) };
}

/** Wraps the instant model to measure the time spent inside complete(). */
class TimedModel extends InstantModel {
  modelMs = 0;
  override async complete(request: ModelRequest) {
    const t = performance.now();
    try {
      return await super.complete(request);
    } finally {
      this.modelMs += performance.now() - t;
    }
  }
}

async function main(): Promise<void> {
  const sqlJs = await loadSqlJs();
  const db = await openDurableDb({ dir: path.join(root, 'store'), sqlJs });
  const triggers = await createTriggerStore(db, { restartNoticeSession: false });
  const model = new TimedModel();
  const logger = new ClaimTimingLogger('engine');
  const files: Record<string, string> = { 'README.md': '# Demo\n'.repeat(20) };
  for (let i = 0; i < 30; i++) files[`src/module${i}.ts`] = `export function f${i}(x: number) {\n  return x * ${i};\n}\n`.repeat(5);
  const { agent } = await createEngine({
    trusted: () => true,
    redactor: new Redactor(),
    db,
    triggers,
    model: async () => model,
    workspace: new MemoryWorkspace(files),
    clock: systemClock,
    logger,
    storageDir: path.join(root, 'agent'),
    skillDirs: [path.resolve(__dirname, '../skills')],
    workspaceRules: async () => '# Rules\n- TypeScript strict; tests with mocha.\n- Never commit generated files.',
    settings: () => ({ maxActionsPerTask: 1000, maxTokensPerTask: 10_000_000 }),
    // The code actions VS Code offers (their tools are in every task request; never called here).
    codeIntel: unusedCodeIntel,
    // The git action both hosts offer (offered, never called).
    git: new ReadOnlyGit(root),
  });

  const overhead: number[] = [];
  // The process's CPU time over the same span (threads included), minus the model's time: on a
  // crowded machine wall time mostly measures the run queue; this says what the turn itself costs.
  const cpu: number[] = [];
  let modelAtClaim = 0;
  let cpuAtClaim = process.cpuUsage();
  agent.onDidSettle(({ trigger }) => {
    const modelMs = model.modelMs - modelAtClaim;
    if (trigger.source === 'task_continuation') {
      overhead.push(performance.now() - logger.claimedAt - modelMs);
      const used = process.cpuUsage(cpuAtClaim);
      cpu.push((used.user + used.system) / 1000 - modelMs);
    }
    modelAtClaim = model.modelMs;
  });
  const origInfo = logger.info.bind(logger);
  logger.info = (tag, message) => {
    origInfo(tag, message);
    if (tag === 'TRIGGER' && message.startsWith('claimed ')) {
      modelAtClaim = model.modelMs;
      cpuAtClaim = process.cpuUsage();
    }
  };
  await agent.whenReady();
  agent.start();

  const shares: number[] = [];
  let sharedBytes = 0;
  let totalBytes = 0;
  let conversationTokens = 0;
  let taskTokens = 0;
  for (let n = 0; n < TASKS; n++) {
    const firstRequest = model.requests.length;
    model.script([
      {
        toolCalls: [
          {
            name: 'task_start',
            arguments: {
              name: `Refactor ${n}`,
              instruction: 'Find every multiplication helper under src/ and list where each is used; report a table.',
              mode: 'complex',
              skills: ['triage-failing-tests'],
            },
          },
        ],
      },
    ]);
    model.script([
      {
        toolCalls: [
          {
            name: 'update_todos',
            arguments: {
              todos: [
                { text: 'find helpers', status: 'in_progress' },
                { text: 'report', status: 'pending' },
              ],
            },
          },
        ],
      },
    ]);
    for (let t = 2; t < TURNS; t++) {
      model.script([
        {
          toolCalls:
            t % 2
              ? [{ name: 'read_file', arguments: { path: `src/module${t}.ts` } }]
              : [
                  { name: 'search_text', arguments: { query: `f${t}` } },
                  { name: 'list_files', arguments: { dir: 'src' } },
                ],
        },
      ]);
    }
    model.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'error', summary: 'Stopped for the benchmark.' } }] }]);
    const done = new Promise<void>((resolve) => {
      const sub = agent.views.onDidChange((c) => {
        if (c.type === 'task' && c.task.status !== 'running') {
          sub.dispose();
          resolve();
        }
      });
    });
    await agent.sendMessage(`Please refactor batch ${n}`);
    await done;
    const requests = model.requests.slice(firstRequest).map(serializeRequest);
    if (n === 0) {
      conversationTokens = estimateTokens(model.requests[firstRequest]);
      taskTokens = estimateTokens(model.requests[firstRequest + 1]);
    }
    // Task requests are 1..TURNS; from turn 2 each is compared with the one before.
    for (let i = 2; i < requests.length; i++) {
      const share = commonPrefixShare(requests[i - 1], requests[i]);
      shares.push(share);
      sharedBytes += share * requests[i].length;
      totalBytes += requests[i].length;
    }
    if (process.env.ENGINE_BENCH_DEBUG)
      progress(
        shares
          .slice(-(requests.length - 2))
          .map((s) => s.toFixed(3))
          .join(' '),
      );
    progress(`task ${n + 1}/${TASKS}: ${requests.length - 1} task turns`);
  }
  // Drop the warm-up tasks' turns (JIT, file creation); the figure says what they were.
  const samples = overhead.slice(WARMUP_TASKS * TURNS);
  const warming = stats(overhead.slice(0, WARMUP_TASKS * TURNS));

  // Baseline in the same run: the store's bare emit+claim+ack cycle (three durable commits).
  const cycle: number[] = [];
  await agent.shutdown();
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await triggers.emit({ source: 'task_continuation', sessionId: 'bench-baseline' });
    const lease = await triggers.next();
    await triggers.ack(lease.token);
    if (i >= 20) cycle.push(performance.now() - t);
  }
  const turn = stats(samples);
  const base = stats(cycle);
  emitLine({
    name: 'engine.turn_overhead',
    value: turn.median,
    unit: 'ms',
    p95: turn.p95,
    cpu_ms: stats(cpu.slice(WARMUP_TASKS * TURNS)).median,
    runs: samples.length,
    warmup_turns: overhead.length - samples.length,
    warmup_median: warming.median,
    baseline: base.median,
    baselineName: 'store emit+claim+ack cycle',
    ratio: round(turn.median / base.median),
    target: { median: 2, p95: 10 },
  });
  emitLine({ name: 'engine.prompt_tokens', kind: 'conversation', value: conversationTokens, unit: 'tokens', estimate: 'chars/4', target: 4000 });
  emitLine({
    name: 'engine.prompt_tokens',
    kind: 'task',
    value: taskTokens,
    unit: 'tokens',
    estimate: 'chars/4',
    actionSet: 'core+read (with the code actions), 1 skill',
    target: 4000,
  });
  const share = stats(shares);
  emitLine({
    name: 'engine.stable_prefix_share',
    value: share.median,
    unit: 'ratio',
    min: share.min,
    p5: stats(shares.map((s) => -s)).p95 * -1,
    byteWeighted: round(sharedBytes / totalBytes),
    requests: shares.length,
    turns: TURNS,
    target: 0.95,
  });
  await triggers.close();
  await db.close();
  await cancelLatency();
  await verifyOverhead(root);
  await mcpPrompt();
  await longTaskPrefix(stats);
}

/** A language-features port for the prompt figures: offered like in VS Code, never asked. */
const unusedCodeIntel: CodeIntelPort = new Proxy({} as CodeIntelPort, {
  get: () => () => Promise.reject(new Error('no language servers in this benchmark')),
});

/**
 * One 20-turn task with server-everything's tools offered and the same task without them: first
 * request size and the median prefix share between consecutive requests, for both.
 */
async function mcpPrompt(): Promise<void> {
  const dir = path.join(root, 'mcp');
  const sqlJs = await loadSqlJs();
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs });
  const triggers = await createTriggerStore(db, { restartNoticeSession: false });
  const model = new InstantModel();
  const everything = path.resolve(__dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const { servers: definitions } = parseMcpServers(
    { servers: { everything: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] } } },
    'user',
  );
  const servers = new McpServers({
    definitions: () => definitions,
    trusted: () => true,
    workspaceTrusted: () => true,
    cwd: dir,
    clock: systemClock,
    logger: new ClaimTimingLogger('engine'),
  });
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`src/module${i}.ts`] = `export function f${i}(x: number) {\n  return x * ${i};\n}\n`.repeat(5);
  const { agent } = await createEngine({
    trusted: () => true,
    redactor: new Redactor(),
    db,
    triggers,
    model: async () => model,
    workspace: new MemoryWorkspace(files),
    clock: systemClock,
    logger: new ClaimTimingLogger('engine'),
    storageDir: path.join(dir, 'agent'),
    skillDirs: [path.resolve(__dirname, '../skills')],
    workspaceRules: async () => '# Rules\n- TypeScript strict; tests with mocha.',
    settings: () => ({ maxActionsPerTask: 1000, maxTokensPerTask: 10_000_000 }),
    // The code actions VS Code offers (their tools are in every task request; never called here).
    codeIntel: unusedCodeIntel,
    // The git action both hosts offer (offered, never called).
    git: new ReadOnlyGit(root),
    // The prompts list the server's set, as in VS Code.
    grantableSets: () => servers.grantableSets(),
  });
  // Calls would ask for approval; this figure only offers the tools, it never calls one.
  const actions = await servers.actions({
    request: async () => {
      throw new Error('no MCP calls in this benchmark');
    },
  });
  agent.addActions(actions);
  await agent.whenReady();
  agent.start();
  const run = async (label: string, actionSets: string[]) => {
    const first = model.requests.length;
    for (let t = 0; t < TURNS - 1; t++)
      model.script([
        { toolCalls: t % 2 ? [{ name: 'read_file', arguments: { path: `src/module${t}.ts` } }] : [{ name: 'search_text', arguments: { query: `f${t}` } }] },
      ]);
    model.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] }]);
    const done = new Promise<void>((resolve) => {
      const sub = agent.views.onDidChange((c) => {
        if (c.type === 'task' && c.task.name === label && c.task.status !== 'running') {
          sub.dispose();
          resolve();
        }
      });
    });
    await triggers.emit({
      source: 'proactive',
      sessionId: 'system',
      payload: { prompt: 'Find every multiplication helper under src/ and list where each is used.', name: label, actionSets },
    });
    await done;
    const requests = model.requests.slice(first);
    const serialized = requests.map(serializeRequest);
    const shares = serialized.slice(1).map((text, i) => commonPrefixShare(serialized[i], text));
    return { tokens: estimateTokens(requests[0]), share: stats(shares), tools: requests[0].tools?.length ?? 0 };
  };
  const baseline = await run('no MCP', []);
  const withMcp = await run('with MCP', [mcpActionSet('everything')]);
  emitLine({
    name: 'engine.prompt_tokens',
    kind: 'task+mcp',
    value: withMcp.tokens,
    unit: 'tokens',
    estimate: 'chars/4',
    tools: withMcp.tools,
    mcpTools: actions.length,
    baseline: baseline.tokens,
    baselineName: 'same task, no MCP tools',
    baselineTools: baseline.tools,
    target: 4000,
  });
  emitLine({
    name: 'engine.stable_prefix_share',
    kind: 'mcp',
    value: withMcp.share.median,
    unit: 'ratio',
    min: withMcp.share.min,
    baseline: baseline.share.median,
    baselineName: 'same task, no MCP tools',
    turns: TURNS,
    target: 0.95,
  });
  await agent.shutdown();
  await servers.stopAll();
  await triggers.close();
  await db.close();
}

/**
 * Whether any process of the group led by `pid` is still running (the shell and what it
 * started). A killed child whose shell died first is reparented to the machine's init process and
 * stays a zombie until init reaps it; in a container whose init does not reap, that can be
 * forever. A zombie runs nothing and holds nothing but its process-table slot, so on Linux it does
 * not count: the group is read from /proc. Elsewhere, signal 0 to the group decides.
 */
function groupAlive(pid: number): boolean {
  if (process.platform === 'linux') {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited while we looked
      }
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pid && state !== 'Z' && state !== 'X') return true;
    }
    return false;
  }
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const CANCEL_RUNS = Number(process.env.ENGINE_BENCH_CANCEL_RUNS ?? 30);
const BASELINE_RUNS = 5;
/** The command the baseline waits out: a short build. */
const BASELINE_COMMAND = 'sleep 1';
/** The command Cancel interrupts: one that would run for a long time. */
const LONG_COMMAND = 'sleep 30';

async function cancelLatency(): Promise<void> {
  const sqlJs = await loadSqlJs();
  const dir = path.join(root, 'cancel');
  const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs });
  const triggers = await createTriggerStore(db, { restartNoticeSession: false });
  const model = new InstantModel();
  const pids: number[] = [];
  let spawned: () => void = () => undefined;
  // Built as every host builds it: the engine's CommandService, with its stop-on-cancel.
  const engine = await createEngine({
    db,
    triggers,
    trusted: () => true,
    redactor: new Redactor(),
    model: async () => model,
    workspace: new MemoryWorkspace({ 'README.md': '# Demo\n' }),
    clock: systemClock,
    logger: new ClaimTimingLogger('engine'),
    storageDir: path.join(dir, 'agent'),
    skillDirs: [],
    settings: () => ({ maxActionsPerTask: 1000, maxTokensPerTask: 10_000_000 }),
    commands: {
      runner: {
        runCommand: (command, options) => {
          const run = startChild(command, { ...options, cwd: dir });
          if (run.pid !== undefined) pids.push(run.pid);
          spawned();
          return run.result;
        },
        runTask: async () => ({ exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 0, error: 'no tasks here' }),
      },
      gate: { allowedCommands: () => [BASELINE_COMMAND, LONG_COMMAND], trusted: () => true },
    },
  });
  const { agent } = engine;
  await agent.whenReady();
  agent.start();

  /** Starts a task whose first turn runs `command`; resolves once its child process exists. */
  const startRunning = async (command: string, n: number): Promise<string> => {
    const running = new Promise<void>((resolve) => (spawned = resolve));
    // A cancelled task makes no further call, so only the baseline's task gets its task_end.
    model.script([
      { toolCalls: [{ name: 'run_command', arguments: { command } }] },
      ...(command === BASELINE_COMMAND ? [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'built' } }] }] : []),
    ]);
    await triggers.emit({
      source: 'proactive',
      sessionId: 'system',
      payload: { prompt: `Build ${n}`, actionSets: ['commands'] },
      dedupKey: `bench-cancel-${n}-${command}`,
    });
    await running;
    return agent.views.snapshot().tasks.find((t) => t.instruction === `Build ${n}`)!.id;
  };

  const cancel: number[] = [];
  let notIdle = 0;
  let survivors = 0;
  for (let n = 0; n < CANCEL_RUNS + 3; n++) {
    const id = await startRunning(LONG_COMMAND, n);
    const pid = pids[pids.length - 1]!;
    const t = performance.now();
    await agent.cancelTask(id);
    const ms = performance.now() - t;
    if (agent.views.snapshot().sessions.find((s) => s.id === id)?.status !== 'idle') notIdle++;
    if (groupAlive(pid)) survivors++;
    if (n >= 3) cancel.push(ms);
  }
  const wait: number[] = [];
  const settled = new Map<string, () => void>();
  const following = agent.onDidSettle(({ trigger }) => {
    if (trigger.source === 'task_continuation') settled.get(trigger.sessionId)?.();
  });
  for (let n = 0; n < BASELINE_RUNS; n++) {
    let turnDone!: () => void;
    const finished = new Promise<void>((resolve) => (turnDone = resolve));
    const id = await startRunning(BASELINE_COMMAND, 1000 + n);
    const t = performance.now();
    // The turn that runs the command is the task's first continuation.
    settled.set(id, turnDone);
    await finished;
    wait.push(performance.now() - t);
  }
  following.dispose();
  await agent.shutdown();
  await triggers.close();
  await db.close();
  const c = stats(cancel);
  const b = stats(wait);
  emitLine({
    name: 'engine.cancel_latency',
    value: c.median,
    unit: 'ms',
    p95: c.p95,
    runs: cancel.length,
    baseline: b.median,
    baselineName: `waiting for the turn to finish (a ${BASELINE_COMMAND} command)`,
    ratio: round(c.median / b.median),
    notIdleAfterCancel: notIdle,
    childrenLeftAlive: survivors,
    target: { median: 100, p95: 500 },
  });
}

main()
  .catch((error) => {
    process.stderr.write(`[engine] failed: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(() => fs.rmSync(root, { recursive: true, force: true }));
