import * as assert from 'node:assert/strict';
import * as z from 'zod/v4';
import { defineAction } from '../../../src/core/actions/types';
import type { AgentChange } from '../../../src/core/engine/types';
import { StepPresenter } from '../../../src/host/stepPresenter';
import { toHostMessages } from '../../../src/host/viewMapping';
import type { StepView } from '../../../src/shared/threadProtocol';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness, engineHooks } from './harness';
import type { Harness } from './harness';

// A long action's progress notes (an MCP tool's notifications/progress, through ctx.progress) reach
// the task's step row while it runs: the engine publishes them live, and the row of that very call
// shows the latest as its note, until its end replaces it. Nothing of it is stored.
describe('engine: a running action shows its progress in its step row', () => {
  let server: ModelServer;
  let h: Harness;
  engineHooks('openai', { setServer: (s) => (server = s), setHarness: (next) => (h = next), harness: () => h });

  it('each note is a newer version of the running row; the end replaces it; the events hold none', async () => {
    await h.close();
    const slow = defineAction({
      name: 'copy_files',
      description: 'Copies files, slowly.',
      input: z.object({}),
      actionSets: ['slow'],
      parallelizable: false,
      irreversible: false,
      approval: 'never',
      async run(_input, ctx) {
        ctx.progress?.('1/2 (50%): first half');
        ctx.progress?.('2/2 (100%): token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789');
        return 'copied';
      },
    });
    h = await createHarness({ wire: 'openai', server, actions: [slow] });
    server.script([{ toolCalls: [{ name: 'copy_files', arguments: {} }] }]);
    await h.triggers.emit({ source: 'proactive', sessionId: 'system', payload: { prompt: 'Copy the files', actionSets: ['slow'] } });
    await h.idle();

    const progress = h.changes.filter((c): c is Extract<AgentChange, { type: 'actionProgress' }> => c.type === 'actionProgress');
    assert.equal(progress.length, 2);
    assert.equal(progress[0]!.note, '1/2 (50%): first half');
    assert.match(progress[1]!.note, /^2\/2 \(100%\): token /);
    assert.doesNotMatch(progress[1]!.note, /abcdefghijklmnop/, 'a note is redacted before it is shown');

    // The host's presenter, fed every change in order, as the sidebar is.
    const presenter = new StepPresenter();
    const rows: StepView[] = [];
    for (const change of h.changes)
      for (const message of toHostMessages(change, () => undefined, presenter)) if (message.type === 'thread.step') rows.push(...message.steps);
    const ofCall = rows.filter((r) => r.id === progress[0]!.callId);
    assert.deepEqual(
      ofCall.map((r) => [r.state, r.note?.replace(/ token .*/, '')]),
      [
        ['running', undefined],
        ['running', '1/2 (50%): first half'],
        ['running', '2/2 (100%):'],
        ['done', undefined],
      ],
    );
    const revs = ofCall.map((r) => r.rev);
    assert.deepEqual(
      [...revs].sort((a, b) => a - b),
      revs,
      'each version is newer than the one before, the end newest',
    );
    const stored = JSON.stringify(h.changes.filter((c) => c.type === 'taskEvent'));
    assert.doesNotMatch(stored, /first half/, 'progress is live only');
  });
});
