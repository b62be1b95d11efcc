import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { nodeJournalIo, type JournalIo } from '../../../src/core/store/storeFiles';
import { sendFailure } from '../../../src/host/sendFailure';
import { createHarness } from './harness';

/**
 * Runs the send worker (fixtures/sendWorker.ts) on `dir`: it sends one message and kills itself
 * with SIGKILL after its `killAfter`-th write. Resolves with the writes it reported.
 */
function sendAndDie(dir: string, killAfter: number, requestId: string): Promise<{ writes: string[]; done: number | undefined }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'fixtures', 'sendWorker.ts'), dir, String(killAfter), requestId], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`send worker exited by itself (code ${code}); it should only ever be killed`));
      const lines = out.split('\n').filter(Boolean);
      const done = lines.find((l) => l.startsWith('DONE '));
      resolve({ writes: lines.filter((l) => l.startsWith('W ')), done: done ? Number(done.slice(5)) : undefined });
    });
  });
}

/**
 * The durable queue's promise for a message the person sends: a crash after any write of the send
 * loses nothing and doubles nothing. After each kill the store is reopened, and the sidebar sends
 * again what it never heard back about (same request id, as `Composer.resume` does): the message
 * is then in exactly one conversation, once, answered exactly once.
 */
describe('engine: a sent message survives a SIGKILL after each of its writes', function () {
  this.timeout(120_000);
  let server: ModelServer;
  const dirs: string[] = [];
  before(async () => (server = await startModelServer()));
  after(async () => {
    await server.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const freshDir = (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-send-'));
    dirs.push(dir);
    return dir;
  };

  it('is answered exactly once whichever write the kill follows', async () => {
    const whole = await sendAndDie(freshDir(), Number.MAX_SAFE_INTEGER, 'r-count');
    assert.ok(whole.done !== undefined && whole.done >= 2, `the send made ${whole.done} writes: ${whole.writes.join(', ')}`);
    assert.match(whole.writes[0]!, /journal/, 'the first write is the one durable commit (session and trigger)');
    for (let killAfter = 0; killAfter <= whole.done; killAfter++) {
      const dir = freshDir();
      const died = await sendAndDie(dir, killAfter, 'r-1');
      assert.equal(died.writes.length, killAfter, `killed after write ${killAfter}`);
      server.reset();
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'Hello to you.' } }] }]);
      const h = await createHarness({ wire: 'openai', server, dir });
      try {
        await h.idle();
        await h.agent.sendMessage('hello there', { requestId: 'r-1' });
        await h.idle();
        const lines = [];
        for (const session of h.agent.views.snapshot().sessions) lines.push(...(await h.agent.views.sessionMessages(session.id)));
        const said = lines.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => `${m.role}: ${m.text}`);
        assert.deepEqual(said, ['user: hello there', 'assistant: Hello to you.'], `after a kill following write ${killAfter} (${died.writes.join(', ')})`);
        assert.equal(server.requests.length, 1, `one model request after a kill following write ${killAfter}`);
      } finally {
        await h.close();
      }
    }
  });
});

/**
 * Faults review D2: a full disk on the send's write rejected the send ("Not sent"), yet the batch
 * stayed queued and was answered once space returned, and the person's second Send was answered
 * again. Now the person is told it will be sent, and a re-send (same request id) is the same message.
 */
describe('engine: a send that hit a full disk is answered once', function () {
  this.timeout(60_000);
  let server: ModelServer;
  before(async () => (server = await startModelServer()));
  after(async () => server.close());

  it('says it will be sent when space returns, and a re-send is not answered twice', async () => {
    // The disk is full for the one write that carries the send (as the faults probe did it).
    let full = false;
    const io: JournalIo = {
      ...nodeJournalIo,
      write: (fd, data, position) => {
        if (!full || !data.includes('send:r-full')) return nodeJournalIo.write(fd, data, position);
        full = false;
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      },
      fdatasync: nodeJournalIo.fdatasync,
    };
    // The loop starts after the re-send: a claim whose write fails stops the loop, which is the
    // faults review's D3 (the store's part), not what this test is about.
    const h = await createHarness({ wire: 'openai', server, journalIo: io, noStart: true });
    try {
      server.script([{ toolCalls: [{ name: 'send_message', arguments: { text: 'Hello to you.' } }] }]);
      full = true;
      const failed = await h.agent.sendMessage('hello there', { requestId: 'r-full' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failed, 'the send reports that it is not durable yet');
      assert.match(sendFailure(failed), /will be sent when there is space again, and answered once/);
      await h.agent.sendMessage('hello there', { requestId: 'r-full' });
      h.agent.start();
      await h.idle();
      const lines = [];
      for (const session of h.agent.views.snapshot().sessions) lines.push(...(await h.agent.views.sessionMessages(session.id)));
      assert.deepEqual(
        lines.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => `${m.role}: ${m.text}`),
        ['user: hello there', 'assistant: Hello to you.'],
      );
      assert.equal(server.requests.length, 1);
    } finally {
      await h.close();
    }
  });
});
