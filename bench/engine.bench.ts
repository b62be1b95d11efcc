// Engine benchmark (docs/DESIGN.md §10, issue #4), one JSON line per figure on stdout:
// - engine.turn_overhead: wall time of a task turn from claim to ack minus the time inside the
//   model call, with an instant in-process model, on the real durable store (journal + fsync) and
//   real event-stream files; median and p95, compared with the store's bare emit+claim+ack cycle
//   measured in the same run (the floor any turn pays).
// - engine.prompt_tokens: first request size (≈ chars/4) for conversation and for a task with the
//   core action set, the built-in skill catalog and one chosen skill.
// - engine.stable_prefix_share: byte-identical prefix shared with the previous request, for each
//   request from turn 2 of a 20-turn task (median and minimum).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../src/core/engine/agent';
import type { ModelRequest } from '../src/core/model/types';
import type { LogTag, Logger } from '../src/core/ports';
import { systemClock } from '../src/core/ports';
import { commonPrefixShare, estimateTokens, serializeRequest } from '../src/core/prompts/requestBuilder';
import { openDurableDb } from '../src/core/store/durableDb';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { createTriggerStore } from '../src/core/store/triggerStore';
import { InstantModel } from '../test/fakes/instantModel';
import { MemoryWorkspace } from '../test/fakes/memoryWorkspace';

const TASKS = Number(process.env.ENGINE_BENCH_TASKS ?? 6);
const TURNS = 20;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-engine-bench-'));

const emitLine = (figure: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(figure)}\n`);
const progress = (message: string) => process.stderr.write(`[engine] ${message}\n`);
const round = (n: number) => Math.round(n * 1000) / 1000;
function stats(samples: number[]): { median: number; p95: number; min: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: round(at(0.5)), p95: round(at(0.95)), min: round(sorted[0]) };
}

/** Times each trigger from the loop's claim log line to its settle hook. */
class TimingLogger implements Logger {
  claimedAt = 0;
  trace() {}
  info(tag: LogTag, message: string) {
    if (tag === 'TRIGGER' && message.startsWith('claimed ')) this.claimedAt = performance.now();
  }
  warn() {}
  error(_tag: LogTag, message: string, error?: unknown) {
    process.stderr.write(`[engine] error: ${message} ${(error as Error | undefined)?.message ?? ''}\n`);
  }
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
  const logger = new TimingLogger();
  const files: Record<string, string> = { 'README.md': '# Demo\n'.repeat(20) };
  for (let i = 0; i < 30; i++) files[`src/module${i}.ts`] = `export function f${i}(x: number) {\n  return x * ${i};\n}\n`.repeat(5);
  const agent = new Agent({
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
  });

  const overhead: number[] = [];
  let modelAtClaim = 0;
  agent.onSettled = (trigger) => {
    if (trigger.source === 'task_continuation') overhead.push(performance.now() - logger.claimedAt - (model.modelMs - modelAtClaim));
    modelAtClaim = model.modelMs;
  };
  const origInfo = logger.info.bind(logger);
  logger.info = (tag, message) => {
    origInfo(tag, message);
    if (tag === 'TRIGGER' && message.startsWith('claimed ')) modelAtClaim = model.modelMs;
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
    model.script([{ toolCalls: [{ name: 'task_start', arguments: { name: `Refactor ${n}`, instruction: 'Find every multiplication helper under src/ and list where each is used; report a table.', mode: 'complex', skills: ['triage-failing-tests'] } }] }]);
    model.script([{ toolCalls: [{ name: 'update_todos', arguments: { todos: [{ text: 'find helpers', status: 'in_progress' }, { text: 'report', status: 'pending' }] } }] }]);
    for (let t = 2; t < TURNS; t++) {
      model.script([{ toolCalls: t % 2 ? [{ name: 'read_file', arguments: { path: `src/module${t}.ts` } }] : [{ name: 'search_text', arguments: { query: `f${t}` } }, { name: 'list_files', arguments: { dir: 'src' } }] }]);
    }
    model.script([{ toolCalls: [{ name: 'task_end', arguments: { status: 'error', summary: 'Stopped for the benchmark.' } }] }]);
    const done = new Promise<void>((resolve) => {
      const sub = agent.onDidChange((c) => {
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
    if (process.env.ENGINE_BENCH_DEBUG) progress(shares.slice(-(requests.length - 2)).map((s) => s.toFixed(3)).join(" "));
    progress(`task ${n + 1}/${TASKS}: ${requests.length - 1} task turns`);
  }
  // Drop the first task's turns as warm-up (JIT, file creation).
  const samples = overhead.slice(TURNS);

  // Baseline in the same run: the store's bare emit+claim+ack cycle (three durable commits).
  const cycle: number[] = [];
  await agent.stop();
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await triggers.emit({ source: 'task_continuation', sessionId: 'bench-baseline' });
    const lease = await triggers.next();
    await triggers.ack(lease.token);
    if (i >= 20) cycle.push(performance.now() - t);
  }
  const turn = stats(samples);
  const base = stats(cycle);
  emitLine({ name: 'engine.turn_overhead', value: turn.median, unit: 'ms', p95: turn.p95, runs: samples.length, baseline: base.median, baselineName: 'store emit+claim+ack cycle', ratio: round(turn.median / base.median), target: { median: 10, p95: 50 } });
  emitLine({ name: 'engine.prompt_tokens', kind: 'conversation', value: conversationTokens, unit: 'tokens', estimate: 'chars/4', target: 4000 });
  emitLine({ name: 'engine.prompt_tokens', kind: 'task', value: taskTokens, unit: 'tokens', estimate: 'chars/4', actionSet: 'core+read, 1 skill', target: 4000 });
  const share = stats(shares);
  emitLine({ name: 'engine.stable_prefix_share', value: share.median, unit: 'ratio', min: share.min, p5: stats(shares.map((s) => -s)).p95 * -1, byteWeighted: round(sharedBytes / totalBytes), requests: shares.length, turns: TURNS, target: 0.95 });
  await triggers.close();
  await db.close();
}

main()
  .catch((error) => {
    process.stderr.write(`[engine] failed: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(() => fs.rmSync(root, { recursive: true, force: true }));
