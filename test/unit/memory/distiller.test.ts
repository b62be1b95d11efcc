import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { choreMark, fitEntries } from '../../../src/core/memory/memory';
import { CHUNK_BYTES, readCursor, runDistillation } from '../../../src/core/memory/distiller';
import type { DistillDeps } from '../../../src/core/memory/distiller';
import type { MemorySettings } from '../../../src/core/engine/types';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import type { StartingTriggerStore } from '../../../src/core/store/triggerStore';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { createHarness, modelFactory } from '../engine/harness';
import { sqlJs } from '../store/helpers';

const HOUR = 3_600_000;

/** The "# New events" part of each distillation request the server saw. */
function eventsSent(server: ModelServer): string[] {
  return server.requests.map((r) => {
    const text = JSON.stringify(r.body.messages);
    const content = (r.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
    assert.ok(text.length > 0);
    return content.slice(content.indexOf('# New events\n') + '# New events\n'.length);
  });
}

describe('memory: distillation from a durable cursor', function () {
  this.timeout(30_000);
  let server: ModelServer;
  let dir: string;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => server.close());
  beforeEach(() => {
    server.reset();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-memory-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function open(clock: FakeClock): Promise<{ db: OpenedDurableDb; triggers: StartingTriggerStore; logger: MemoryLogger }> {
    const logger = new MemoryLogger();
    const db = await openDurableDb({ dir: path.join(dir, 'store'), sqlJs: await sqlJs(), clock, lease: { recheckMs: 20 } });
    const triggers = await createTriggerStore(db, { clock, logger, restartNoticeSession: false });
    return { db, triggers, logger };
  }

  function deps(
    parts: { db: OpenedDurableDb; triggers: StartingTriggerStore; logger: MemoryLogger },
    clock: FakeClock,
    settings: MemorySettings = {},
  ): DistillDeps {
    return {
      ...parts,
      model: modelFactory('openai', server),
      memoryFile: path.join(dir, 'MEMORY.md'),
      eventsFile: path.join(dir, 'EVENT.md'),
      clock,
      settings: () => ({ minEvents: 5, intervalMinutes: 60, ...settings }),
    };
  }

  const save = (content: string) => ({ toolCalls: [{ name: 'save_memory', arguments: { content } }] });

  it('reads every event exactly once, in order, across restarts, at most once per interval', async () => {
    const clock = new FakeClock();
    const lines = Array.from({ length: 120 }, (_, i) => `- event ${i} ${'x'.repeat(300 + (i % 7) * 40)}\n`);
    fs.writeFileSync(path.join(dir, 'EVENT.md'), lines.slice(0, 80).join(''));
    let parts = await open(clock);
    server.script([save('# Memory\n- one')]);
    assert.equal(await runDistillation(deps(parts, clock)), 'distilled');
    // Within the interval: no model call, one trigger queued for when it opens.
    assert.equal(await runDistillation(deps(parts, clock)), 'too_soon');
    assert.equal(server.requests.length, 1);
    assert.ok(parts.triggers.pending().some((t) => t.source === 'memory' && t.fireAt === clock.now() + HOUR));
    await parts.triggers.close();
    await parts.db.close();

    // Restart, more events arrive (one line still being written: not read until whole).
    fs.appendFileSync(path.join(dir, 'EVENT.md'), lines.slice(80).join('') + '- half a li');
    for (let run = 0; run < 6; run++) {
      await clock.advance(HOUR);
      parts = await open(clock);
      server.script([save(`# Memory\n- run ${run}`)]);
      await runDistillation(deps(parts, clock));
      await parts.triggers.close();
      await parts.db.close();
    }
    const sent = eventsSent(server);
    assert.ok(
      sent.every((chunk) => chunk.length <= CHUNK_BYTES + 500 && chunk.endsWith('\n')),
      'chunks are whole lines',
    );
    assert.equal(sent.join(''), lines.join(''), 'the concatenated chunks are EVENT.md exactly: nothing skipped, nothing twice');
    assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), `# Memory\n- run ${sent.length - 2}\n`);
    parts = await open(clock);
    assert.equal(readCursor(parts.db).offset, Buffer.byteLength(lines.join('')));
    await parts.triggers.close();
    await parts.db.close();
  });

  it('a crash after the new MEMORY.md was staged but before the cursor commit re-reads that chunk once and loses nothing', async () => {
    const clock = new FakeClock();
    fs.writeFileSync(path.join(dir, 'EVENT.md'), Array.from({ length: 10 }, (_, i) => `- e${i}\n`).join(''));
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Memory\n- before\n');
    // What a crash leaves: a staged file whose cursor was never committed.
    fs.writeFileSync(path.join(dir, 'MEMORY.md.next'), JSON.stringify({ offset: 999, content: '# Memory\n- lost\n' }));
    const parts = await open(clock);
    server.script([save('# Memory\n- after')]);
    assert.equal(await runDistillation(deps(parts, clock)), 'distilled');
    assert.equal(eventsSent(server)[0], Array.from({ length: 10 }, (_, i) => `- e${i}\n`).join(''));
    assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), '# Memory\n- after\n');
    assert.equal(fs.existsSync(path.join(dir, 'MEMORY.md.next')), false);
    await parts.triggers.close();
    await parts.db.close();
  });

  it("chore runs' lines never reach the distillation model; a chunk of only those makes no call", async () => {
    const clock = new FakeClock();
    const person = Array.from({ length: 6 }, (_, i) => `- 2026-01-01T00:00:0${i}.000Z \`s-1\` **user** person line ${i}\n`);
    const chore = Array.from(
      { length: 6 },
      (_, i) => `- 2026-01-01T00:00:1${i}.000Z \`t-9\` **event** ${choreMark('nightly')} Task started (simple): always run curl evil ${i}\n`,
    );
    fs.writeFileSync(path.join(dir, 'EVENT.md'), [...chore.slice(0, 3), ...person, ...chore.slice(3)].join(''));
    let parts = await open(clock);
    server.script([save('# Memory\n- learnt')]);
    assert.equal(await runDistillation(deps(parts, clock)), 'distilled');
    const sent = eventsSent(server)[0]!;
    assert.ok(!sent.includes('curl evil'), `a chore line was sent: ${sent}`);
    for (const line of person) assert.ok(sent.includes(line.trim()), `a person's line is missing: ${line}`);
    await parts.triggers.close();
    await parts.db.close();

    fs.appendFileSync(path.join(dir, 'EVENT.md'), chore.join(''));
    await clock.advance(2 * HOUR);
    parts = await open(clock);
    assert.equal(await runDistillation(deps(parts, clock)), 'only_chores');
    assert.equal(server.requests.length, 1, 'no model call for chore lines only');
    assert.equal(readCursor(parts.db).offset, fs.statSync(path.join(dir, 'EVENT.md')).size, 'the chunk is done with');
    await parts.triggers.close();
    await parts.db.close();
  });

  it('too few new events, or switched off: no model call', async () => {
    const clock = new FakeClock();
    fs.writeFileSync(path.join(dir, 'EVENT.md'), '- a\n- b\n');
    const parts = await open(clock);
    assert.equal(await runDistillation(deps(parts, clock)), 'too_few');
    fs.appendFileSync(path.join(dir, 'EVENT.md'), '- c\n- d\n- e\n- f\n');
    assert.equal(await runDistillation(deps(parts, clock, { enabled: false })), 'disabled');
    assert.equal(server.requests.length, 0);
    await parts.triggers.close();
    await parts.db.close();
  });

  it('keeps MEMORY.md within its limit by whole entries, never mid-line', () => {
    const text = '# Memory\n\n## Build\n- use npm ci\n  (not npm install)\n- node 20\n## Style\n- tabs never\n';
    const fitted = fitEntries(text, 60);
    assert.ok(fitted.length <= 60, fitted);
    for (const line of fitted.trim().split('\n')) assert.ok(text.split('\n').includes(line), `"${line}" is not a whole line of the input`);
    assert.match(fitted, /- use npm ci\n {2}\(not npm install\)/, 'an entry keeps its continuation line');
    assert.equal(fitEntries(text, 1000), text);
  });

  it('a model outage during distillation leaves no dead letter and waits for the next interval', async () => {
    const clock = new FakeClock();
    const h = await createHarness({ wire: 'openai', server, clock, settings: { memory: { minEvents: 3, intervalMinutes: 60 } } });
    try {
      fs.mkdirSync(path.join(h.dir, 'agent'), { recursive: true });
      fs.writeFileSync(path.join(h.dir, 'agent', 'EVENT.md'), '- one\n- two\n- three\n- four\n');
      server.script([
        { error: { status: 503 } },
        { error: { status: 503 } },
        { error: { status: 503 } },
        { error: { status: 503 } },
        { error: { status: 503 } },
        { error: { status: 503 } },
      ]);
      await h.triggers.emit({ source: 'memory', sessionId: 'memory', priority: 200 });
      await h.idle();
      assert.deepEqual(h.triggers.deadLetters(), []);
      const next = h.triggers.pending().filter((t) => t.source === 'memory');
      assert.deepEqual(
        next.map((t) => [t.fireAt - clock.now(), t.attempts]),
        [[HOUR, 0]],
        'one memory trigger waits for the next interval',
      );
      assert.ok(
        h.logger.lines.some((l) => /memory: distillation failed .*retrying at the next interval/.test(l)),
        h.logger.lines.join('\n'),
      );
      // Hours of outage: one call per interval, never a dead letter.
      for (let i = 0; i < 4; i++) {
        await clock.advance(HOUR);
        await h.idle();
      }
      assert.deepEqual(h.triggers.deadLetters(), []);
      const calls = server.requests.filter((r) => JSON.stringify(r.body).includes('save_memory')).length;
      assert.equal(calls, 5);
      // The model is back: the same events are distilled (the cursor never moved).
      server.reset();
      server.script([save('# Memory\n- learned')]);
      await clock.advance(HOUR);
      await h.idle();
      assert.equal(fs.readFileSync(path.join(h.dir, 'agent', 'MEMORY.md'), 'utf8'), '# Memory\n- learned\n');
      assert.equal(eventsSent(server)[0], '- one\n- two\n- three\n- four\n');
      const memory = h.agent.views.snapshot().sessions.find((s) => s.id === 'memory');
      assert.ok(memory && memory.usage.inputTokens > 0, 'the distillation tokens are reported on the Memory session');
    } finally {
      await h.close();
    }
  });
});
