// engine.stable_prefix_share (kind long_task), issue 39: a task of 200 turns whose reads are large
// (about 7 KB each) passes the history bound several times; each cut folds the dropped turns into
// the task's history summary (src/core/engine/historySummary.ts). The figure is the median share of
// bytes each request shares with the one before (as for the 20-turn figure), with the byte-weighted
// share, the mean, the minimum (a turn at a cut shares only the stable prefix) and the number of
// cuts. Deterministic (an instant in-process model), so it has no baseline to divide by.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createEngine } from '../src/core/createEngine';
import { silentLogger, systemClock } from '../src/core/ports';
import type { Logger } from '../src/core/ports';
import { commonPrefixShare, serializeRequest } from '../src/core/prompts/requestBuilder';
import { Redactor } from '../src/core/security/redact';
import { openDurableDb } from '../src/core/store/durableDb';
import { loadSqlJs } from '../src/core/store/sqlJs';
import { createTriggerStore } from '../src/core/store/triggerStore';
import { InstantModel } from '../test/fakes/instantModel';
import { MemoryWorkspace } from '../test/fakes/memoryWorkspace';
import { emitLine, round } from './support';

const TURNS = 200;
const FILES = 8;

/** Runs the 200-turn task once; returns each turn's share, the byte-weighted share and how many cuts there were. */
async function longTask(): Promise<{ shares: number[]; weighted: number; cuts: number; largest: number }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-long-bench-'));
  const db = await openDurableDb({ dir: path.join(root, 'store'), sqlJs: await loadSqlJs() });
  const triggers = await createTriggerStore(db, { restartNoticeSession: false });
  const model = new InstantModel();
  let cuts = 0;
  const logger: Logger = { ...silentLogger, info: (_tag, message) => void (message.includes('history cut at event') && cuts++) };
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++)
    files[`src/module${i}.ts`] = Array.from({ length: 120 }, (_, n) => `export const value${i}_${n} = ${n}; // line ${n} of a large module`).join('\n');
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
    skillDirs: [],
    settings: () => ({ maxActionsPerTask: 5000, maxTokensPerTask: 1_000_000_000 }),
  });
  await agent.whenReady();
  agent.start();
  model.script([{ toolCalls: [{ name: 'update_todos', arguments: { todos: [{ text: 'read every module', status: 'in_progress' }] } }] }]);
  for (let t = 1; t < TURNS - 1; t++) model.script([{ toolCalls: [{ name: 'read_file', arguments: { path: `src/module${t % FILES}.ts` } }] }]);
  model.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] }]);
  const done = new Promise<void>((resolve) => {
    const sub = agent.views.onDidChange((c) => {
      if (c.type === 'task' && c.task.status !== 'running') {
        sub.dispose();
        resolve();
      }
    });
  });
  await triggers.emit({
    source: 'proactive',
    sessionId: 'system',
    payload: { prompt: 'Review every module under src/ and list what to simplify.', name: 'Long review' },
  });
  await done;
  const serialized = model.requests.map(serializeRequest);
  const shares = serialized.slice(1).map((text, i) => commonPrefixShare(serialized[i], text));
  const total = serialized.slice(1).reduce((n, text) => n + text.length, 0);
  const shared = serialized.slice(1).reduce((n, text, i) => n + shares[i] * text.length, 0);
  await agent.shutdown();
  await triggers.close();
  await db.close();
  fs.rmSync(root, { recursive: true, force: true });
  return { shares, weighted: shared / total, cuts, largest: Math.max(...serialized.map((s) => s.length)) };
}

export async function longTaskPrefix(stats: (samples: number[]) => { median: number; p95: number; min: number }): Promise<void> {
  const run = await longTask();
  const share = stats(run.shares);
  emitLine({
    name: 'engine.stable_prefix_share',
    kind: 'long_task',
    value: share.median,
    unit: 'ratio',
    min: share.min,
    byteWeighted: round(run.weighted),
    mean: round(run.shares.reduce((a, b) => a + b, 0) / run.shares.length),
    cuts: run.cuts,
    largestRequestChars: run.largest,
    requests: run.shares.length,
    turns: TURNS,
    target: 0.9,
  });
}
