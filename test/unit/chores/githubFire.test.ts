import * as assert from 'node:assert/strict';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { describeFireContext } from '../../../src/core/chores/fireContext';
import { replayContext } from '../../../src/core/chores/githubFire';
import { webhookExample } from '../../support/webhookExamples';

// Run now on a chore that runs on CI replays a recorded event payload through the same matching
// and the same text as CI (the host side is in test/host/choreTriggers.test.ts).

const chores = parseChoresFile(
  [
    'chores:',
    '  - id: triage',
    '    name: Triage',
    '    trigger: { github: { event: issues, types: [opened] } }',
    '    prompt: Label it.',
    '    outputs: { labels: { allowed: [bug], max: 1 } }',
    '  - id: nightly',
    '    name: Nightly',
    '    trigger: { cron: "0 2 * * *" }',
    '    prompt: Tidy.',
    '',
  ].join('\n'),
).chores;
const [triage, nightly] = chores;

describe('chores: replaying a recorded GitHub event (Run now)', () => {
  it('an event that fires the chore becomes its fire context: the event as untrusted data and the outputs it may propose', () => {
    const payload = webhookExample('issues', (e) => e.action === 'opened') as { issue: { number: number; title: string }; repository: { full_name: string } };
    const replay = replayContext(triage, JSON.stringify(payload));
    assert.ok('context' in replay, JSON.stringify(replay));
    assert.equal(replay.context.item, `${payload.repository.full_name}#${payload.issue.number}`);
    const told = describeFireContext({ cause: 'manual', context: replay.context, fireTime: new Date().toISOString(), startedAt: Date.now() });
    assert.match(told, /a recorded GitHub issues \(opened\) event on .*, replayed in VS Code by hand\. Nothing is written to GitHub/);
    assert.match(told, /<untrusted-event-text[^>]*>[\s\S]*<\/untrusted-event-text>/);
    assert.ok(told.includes(payload.issue.title));
    assert.match(told, /"labels": \[<at most 1 of: bug>\]/);
  });

  it('refuses what CI would not run, saying why', () => {
    const comment = webhookExample('issue_comment', (e) => e.action === 'created');
    const problem = (chore: typeof triage, text: string) => {
      const replay = replayContext(chore, text);
      assert.ok('problem' in replay, JSON.stringify(replay));
      return replay.problem;
    };
    assert.match(problem(triage, JSON.stringify(comment)), /does not fire "triage": the event is issue_comment; this chore fires on issues/);
    assert.match(problem(triage, '{"issue": '), /not a GitHub event payload/);
    assert.match(problem(triage, '[1, 2]'), /not a GitHub event payload: it does not hold a JSON object/);
    assert.match(problem(triage, '{"hello": 1}'), /event's name is unknown/);
    const own = webhookExample('issues', (e) => e.action === 'opened') as { sender: { login: string } };
    own.sender.login = 'github-actions[bot]';
    assert.match(problem(triage, JSON.stringify(own)), /Tasklane's own event/);
    assert.match(problem(nightly, JSON.stringify(comment)), /does not run on a GitHub event/);
  });
});
