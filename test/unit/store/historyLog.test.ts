import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../../src/core/ports';
import { HistoryLog } from '../../../src/core/store/historyLog';
import { removeTempDirs, tempDir } from './helpers';

const lines = (file: string): Array<Record<string, unknown>> =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('store: trigger history log', () => {
  afterEach(() => removeTempDirs());

  it('keeps every line appended while a retention rewrite runs, after the lines it kept', async () => {
    const file = path.join(tempDir(), 'history', 'triggers.jsonl');
    const log = new HistoryLog(file, silentLogger);
    for (let i = 0; i < 200; i++) log.append({ id: `old${i}`, doneAt: i });
    await log.flush();
    const pruned = log.prune((entry) => Number(entry.doneAt) < 100);
    // Appended while the rewrite reads and renames: neither lost with the old file nor written into it.
    for (let i = 0; i < 20; i++) {
      log.append({ id: `new${i}`, doneAt: 1000 + i });
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    assert.equal(await pruned, 100);
    await log.close();
    const ids = lines(file).map((l) => l.id);
    assert.deepEqual(ids, [...Array.from({ length: 100 }, (_, i) => `old${100 + i}`), ...Array.from({ length: 20 }, (_, i) => `new${i}`)]);
  });
});
