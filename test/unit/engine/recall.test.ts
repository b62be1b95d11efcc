import * as assert from 'node:assert/strict';
import type { ModelServer } from '../../fixtures/modelServer';
import { engineHooks, WIRES } from './harness';
import type { Harness } from './harness';

const DAY = 86_400_000;

/** The request at `index` as the wire carried it (tool results included). */
const requestText = (server: ModelServer, index: number) => JSON.stringify(server.requests[index]!.body);

for (const wire of WIRES) {
  describe(`engine: finding files and recalling past work (${wire})`, () => {
    let server: ModelServer;
    let h: Harness;
    engineHooks(wire, { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

    it('offers find_files and search_history in the requests a model reads, each described', async () => {
      server.script([{ toolCalls: [{ name: 'task_start', arguments: { name: 'Look', instruction: 'Look around', mode: 'simple' } }] }]);
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'looked' } }] }]);
      await h.agent.sendMessage('look around');
      await h.idle();
      const conversation = requestText(server, 0);
      const task = requestText(server, 1);
      // A conversation turn keeps no tool result (one model call), so it recalls by starting a task.
      assert.doesNotMatch(conversation, /search_history/);
      assert.match(task, /find_files/);
      assert.match(task, /Find workspace files by path glob/);
      assert.match(task, /search_history/);
    });

    it('a task finds files by glob; the result lists exactly the matches', async () => {
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Find', instruction: 'Find the TypeScript sources', mode: 'simple' } }] },
        { toolCalls: [{ name: 'find_files', arguments: { glob: '*.ts' } }] },
        { toolCalls: [{ name: 'find_files', arguments: { glob: 'docs/**' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'found' } }] },
      ]);
      await h.agent.sendMessage('find the sources');
      await h.idle();
      const found = requestText(server, 2);
      assert.match(found, /src\/app\.ts/);
      assert.doesNotMatch(found.slice(found.lastIndexOf('find_files')), /README\.md/);
      assert.match(requestText(server, 3), /no file matches docs\/\*\*/);
    });

    it('search_history finds an earlier task and an archived conversation, and says when nothing matches', async () => {
      // An old conversation about the Zeppelin bundler, archived as one from last year would be.
      server.script([{ text: 'Use the zeppelin.config.js file.' }]);
      const old = await h.agent.sendMessage('How do I configure the Zeppelin bundler?');
      await h.idle();
      h.db.mutate("UPDATE sessions SET status = 'idle', updated_at = ? WHERE id = ?", [h.clock.now() - 330 * DAY, old.sessionId]);
      h.db.mutate('DELETE FROM triggers WHERE session_id = ?', [old.sessionId]);
      await h.db.commit();
      assert.equal((await h.agent.history.runPass()).moved, 1);
      // A task that ended, still hot.
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Upgrade Zeppelin', instruction: 'Upgrade the zeppelin bundler to v3', mode: 'simple' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'Zeppelin is on v3 now; two plugins were replaced.' } }] },
      ]);
      await h.agent.sendMessage('upgrade zeppelin');
      await h.idle();
      const before = server.requests.length;
      server.script([
        { toolCalls: [{ name: 'task_start', arguments: { name: 'Recall', instruction: 'Find what we did about zeppelin', mode: 'simple' } }] },
        { toolCalls: [{ name: 'search_history', arguments: { query: 'zeppelin' } }] },
        { toolCalls: [{ name: 'search_history', arguments: { query: 'kubernetes' } }] },
        { toolCalls: [{ name: 'task_end', arguments: { summary: 'We upgraded Zeppelin to v3 last time.' } }] },
      ]);
      await h.agent.sendMessage('what did we do about zeppelin before?');
      await h.idle();
      const recalled = requestText(server, before + 2);
      assert.match(recalled, /task \\"Upgrade Zeppelin\\" \(task · done · Zeppelin is on v3 now/);
      assert.match(recalled, new RegExp(`session ${old.sessionId}, archived`));
      assert.match(requestText(server, before + 3), /nothing in the history mentions \\"kubernetes\\"/);
    });
  });
}
