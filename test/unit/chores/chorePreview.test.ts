import { grantableSetsText } from '../../../src/core/actions/actionSets';
import * as assert from 'node:assert/strict';
import { previewChore, previewMarkdown } from '../../../src/core/chores/chorePreview';
import { ChoreSpendLedger, InMemorySpendPersistence } from '../../../src/core/chores/spendLedger';
import { taskPrefixText } from '../../../src/core/prompts/requestBuilder';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';

// Preview Chore: the next fires in the chore's own time zone, and a dry run that is built the way
// a real fire is built (the same prompt reaches the model) while calling no model at all.

const cronChore = (tz = '') =>
  choresFrom(`chores:
  - id: nightly
    name: Nightly notes
    trigger: { cron: "0 3 * * *"${tz ? `, timezone: "${tz}"` : ''} }
    prompt: Summarise yesterday's commits.
    actionSets: [files]
    budget: { maxIterations: 4, maxCostUsdPerDay: 2 }
`)[0];

describe('chore preview: next fires and a dry run without the model', function () {
  this.timeout(20_000);

  it('lists the next fires in the chore time zone, across a daylight-saving change', () => {
    const now = Date.parse('2026-03-27T12:00:00Z');
    const preview = previewChore(cronChore('Europe/Paris'), { now, count: 4 });
    assert.equal(preview.timezone, 'Europe/Paris');
    // 03:00 in Paris is 02:00Z in winter time and 01:00Z from 29 March (summer time).
    assert.deepEqual(
      preview.nextFires.map((f) => f.utc),
      ['2026-03-28T02:00:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T01:00:00.000Z', '2026-03-31T01:00:00.000Z'],
    );
    assert.deepEqual(
      preview.nextFires.map((f) => f.local),
      [
        'Sat 2026-03-28 03:00 (Europe/Paris)',
        'Sun 2026-03-29 03:00 (Europe/Paris)',
        'Mon 2026-03-30 03:00 (Europe/Paris)',
        'Tue 2026-03-31 03:00 (Europe/Paris)',
      ],
    );
    assert.equal(preview.dryRun.cause, 'cron');
    assert.equal(preview.dryRun.fireTime, '2026-03-28T02:00:00.000Z');
    assert.match(preview.dryRun.triggerContext, /scheduled for 2026-03-28T02:00:00.000Z \(schedule time zone Europe\/Paris\)/);
    assert.ok(preview.dryRun.prompt.includes(preview.dryRun.triggerContext));
  });

  it("says what drift: skip does with a late fire, with the chore's interval", () => {
    const now = Date.parse('2026-03-27T12:00:00Z');
    const skip = { ...cronChore('UTC'), drift: 'skip' as const };
    const preview = previewChore(skip, { now });
    assert.match(preview.drift ?? '', /less than one interval late \(24 h here\).*waking a few minutes late still runs/);
    assert.match(previewMarkdown(skip, preview), /Missed fires: drift: skip/);
    assert.match(previewChore(cronChore('UTC'), { now }).drift ?? '', /drift: latest/);
  });

  it("says when the chore's cost will be estimated (a model with no known price) and where to give a real price", () => {
    const now = Date.parse('2026-03-27T12:00:00Z');
    const where = 'your user setting tasklane.model.prices';
    const unpriced = previewChore(cronChore('UTC'), { now, model: { id: 'deepseek/deepseek-chat', where } });
    assert.match(unpriced.dryRun.budget.costEstimated ?? '', /no price is known for the model "deepseek\/deepseek-chat".*tasklane\.model\.prices/);
    assert.match(previewMarkdown(cronChore('UTC'), unpriced), /\*\*Cost will be estimated:\*\* no price is known/);
    const priced = previewChore(cronChore('UTC'), {
      now,
      model: { id: 'deepseek/deepseek-chat', where, prices: { 'deepseek/*': { input: 0.3, output: 1.2, cacheRead: 0.3, cacheWrite: 0.3 } } },
    });
    assert.equal(priced.dryRun.budget.costEstimated, undefined);
    assert.doesNotMatch(previewMarkdown(cronChore('UTC'), priced), /Cost will be estimated/);
  });

  it('shows the budgets and says when a rolling cap is already reached', async () => {
    const now = Date.parse('2026-03-27T12:00:00Z');
    const spend = new ChoreSpendLedger(new InMemorySpendPersistence(), () => now);
    spend.add('nightly', 2.5);
    const preview = previewChore(cronChore(), { now, spend, workspaceLimits: { maxCostUsdPerDay: 10, maxCostUsdPerMonth: 0 }, localZone: 'UTC' });
    assert.equal(preview.dryRun.budget.perRun.maxIterations, 4);
    assert.equal(preview.dryRun.budget.chore.maxCostUsdPerDay, 2);
    assert.equal(preview.dryRun.budget.chore.spentToday, 2.5);
    assert.equal(preview.dryRun.budget.workspace.spentToday, 2.5);
    assert.match(preview.dryRun.budget.exhausted ?? '', /\$2/);
    assert.deepEqual(preview.dryRun.actionSets, ['files']);
    const md = previewMarkdown(cronChore(), preview);
    assert.match(md, /A cap is reached/);
    assert.match(md, /Action sets: files/);
    assert.ok(md.includes(preview.dryRun.prompt));
  });

  describe('against a real fire through the engine and the scripted model', () => {
    let server: ModelServer;
    const open = useRunnerHarness((s) => (server = s));

    it("the dry run's prompt is what the next scheduled fire sends to the model, and the dry run sends nothing", async () => {
      const chore = cronChore('Europe/Paris');
      const h = await open([chore]);
      const preview = previewChore(chore, { now: h.clock.now() });
      await h.idle();
      assert.equal(server.requests.length, 0, 'the dry run made no model request');
      // The fire the preview describes, delivered on time as the scheduler delivers it.
      const fireAt = preview.nextFires[0].at;
      server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'done', output: {} } }] }]);
      await h.triggers.emit({
        source: 'scheduled',
        sessionId: 'chore:nightly',
        payload: { kind: 'chore_fire', choreId: 'nightly', fireTime: new Date(fireAt).toISOString(), missed: false },
        fireAt,
      });
      await h.clock.advance(fireAt - h.clock.now());
      const run = await h.ended('nightly');
      assert.equal(run.status, 'succeeded', run.reason ?? '');
      assert.equal(server.requests.length, 1);
      const body = server.requests[0].body as { messages: Array<{ role: string; content: unknown }> };
      const first = body.messages.find((m) => m.role === 'user')!;
      const text = typeof first.content === 'string' ? first.content : (first.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('');
      const { dryRun } = preview;
      assert.equal(
        text,
        // The prefix also lists the grantable sets (no MCP server here), as every task's does.
        taskPrefixText({ name: dryRun.name, instruction: dryRun.prompt, mode: dryRun.mode, skills: [], actionSets: grantableSetsText([]) }),
        'the first message is the dry run prompt in the task prefix',
      );
      assert.ok(text.endsWith(dryRun.prompt));
    });
  });
});
