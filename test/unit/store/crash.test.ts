import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { openDurableDb } from '../../../src/core/store/durableDb';
import { removeTempDirs, sqlJs, tempDir } from './helpers';
import { mulberry32 } from '../../support/seededRandom';

interface RoundLog {
  lines: string[];
  ready: boolean;
}

/**
 * Runs the worker and SIGKILLs it: after `killAfterLines` lines of work once it is ready, or, when
 * that is null, `killAfterSpawnMs` after the spawn (during open or recovery). Counting lines, not
 * milliseconds, keeps the work done between kills the same on a loaded machine; the kill still
 * lands at an unknown point, since the worker runs on while the signal is on its way.
 */
function runAndKill(dir: string, startAt: number, killAfterLines: number | null, killAfterSpawnMs: number): Promise<RoundLog> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'fixtures', 'crashWorker.ts'), dir, String(startAt)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const log: RoundLog = { lines: [], ready: false };
  let buffer = '';
  return new Promise((resolve, reject) => {
    const kill = (): boolean => child.kill('SIGKILL');
    // Some rounds die during open/recovery, before the worker is ready.
    const early = killAfterLines === null ? setTimeout(kill, killAfterSpawnMs) : null;
    let workLines = 0;
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const line of parts) {
        if (line === 'R' && !log.ready) {
          log.ready = true;
          if (killAfterLines === 0) kill();
        } else if (line) {
          log.lines.push(line);
          if (log.ready && killAfterLines !== null && ++workLines === killAfterLines) kill();
        }
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (early) clearTimeout(early);
      if (signal !== 'SIGKILL') reject(new Error(`crash worker exited by itself (code ${code}); it should only ever be killed`));
      else resolve(log);
    });
  });
}

describe('store: real crash test (SIGKILL at random points)', function () {
  this.timeout(120_000);
  after(removeTempDirs);

  it('after every kill: no acked trigger reappears, every emitted trigger is done or still queued, files open cleanly', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const dir = tempDir('crash');
    const acked = new Set<string>();
    const ackAttempted = new Set<string>();
    const emitted = new Set<string>();
    const rounds = 25;
    let totalLines = 0;
    let readyRounds = 0;
    for (let round = 0; round < rounds; round++) {
      const where = `seed ${seed}, round ${round}`;
      const beforeReady = random() < 0.2;
      const log = await runAndKill(dir, round * 100_000, beforeReady ? null : Math.floor(random() * 120), 150 + Math.floor(random() * 500));
      if (log.ready) readyRounds++;
      totalLines += log.lines.length;
      for (const line of log.lines) {
        const [kind, id] = line.split(' ');
        if (kind === 'C') assert.ok(!acked.has(id), `${where}: acked trigger ${id} was delivered again`);
        if (kind === 'E') emitted.add(id);
        if (kind === 'a') ackAttempted.add(id);
        if (kind === 'A') acked.add(id);
      }

      const notices: string[] = [];
      const db = await openDurableDb({ dir, sqlJs: await sqlJs(), lease: { recheckMs: 20 }, onNotice: (m) => notices.push(m) });
      try {
        assert.equal(db.readOnly, false, `${where}: the dead worker's lease was not taken over`);
        const bad = notices.filter((n) => /skips from record|could not be re-applied|No readable|newest saved state/.test(n));
        assert.deepEqual(bad, [], `${where}: files did not open cleanly`);
        const queued = new Map(db.query(`SELECT id, status FROM triggers`).map((r) => [String(r.id), String(r.status)]));
        for (const id of acked) {
          const status = queued.get(id);
          assert.ok(status === undefined || status === 'done', `${where}: acked trigger ${id} is ${status} again`);
        }
        for (const id of emitted) {
          assert.ok(queued.has(id) || ackAttempted.has(id), `${where}: emitted trigger ${id} vanished without being acked`);
        }
      } finally {
        await db.close();
      }
    }
    if (process.env.CRASH_VERBOSE)
      process.stderr.write(
        `crash test: seed ${seed}, ${readyRounds}/${rounds} rounds ready, ${emitted.size} emitted, ${acked.size} acked, ${totalLines} lines\n`,
      );
    // The test is only meaningful if the worker got real work done between kills.
    assert.ok(readyRounds >= rounds / 2, `only ${readyRounds} rounds reached the loop`);
    assert.ok(acked.size > 50, `only ${acked.size} triggers acked in ${rounds} rounds (${totalLines} lines)`);
  });
});
