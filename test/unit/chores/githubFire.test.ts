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
    '  - id: fix',
    '    name: Fix',
    '    trigger: { github: { event: issue_comment, command: fix } }',
    '    prompt: Fix it.',
    '    outputs: { comment: {}, pullRequest: { draft: true } }',
    '  - id: nightly',
    '    name: Nightly',
    '    trigger: { cron: "0 2 * * *" }',
    '    prompt: Tidy.',
    '',
  ].join('\n'),
).chores;
const [triage, fix, nightly] = chores;

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

  it('judges taint as CI does, by who asked (their author_association here): an outsider is narrowed, a maintainer asking on their issue is not', () => {
    type Payload = { sender: { login: string }; issue: { user: { login: string }; author_association: string }; comment: Obj };
    type Obj = { body: string; user: { login: string }; author_association: string };
    const opened = webhookExample('issues', (e) => e.action === 'opened') as Payload;
    opened.issue.author_association = 'NONE';
    const outsider = replayContext(triage, JSON.stringify(opened));
    assert.ok('context' in outsider);
    assert.match(outsider.context.taintReasons?.join() ?? '', /asked for this fire with the role read, outside actors\.trustedRoles/);
    assert.match(outsider.context.text, /asked for by someone outside the chore's trusted roles: this run has no commands/);
    opened.issue.author_association = 'OWNER';
    const owner = replayContext(triage, JSON.stringify(opened));
    assert.ok('context' in owner);
    assert.equal(owner.context.taintReasons, undefined);

    // A maintainer's /tasklane fix on that outsider's issue: the pull request stays on offer.
    const comment = webhookExample('issue_comment', (e) => e.action === 'created') as Payload;
    comment.issue.author_association = 'NONE';
    comment.issue.user.login = 'outsider';
    Object.assign(comment.comment, { body: '/tasklane fix', author_association: 'MEMBER' });
    comment.sender.login = comment.comment.user.login;
    const asked = replayContext(fix!, JSON.stringify(comment));
    assert.ok('context' in asked, JSON.stringify(asked));
    assert.equal(asked.context.taintReasons, undefined);
    assert.match(asked.context.text, /"pullRequest": \{"title"/);
    comment.comment.author_association = 'NONE';
    const own = replayContext(fix!, JSON.stringify(comment));
    assert.ok('context' in own);
    assert.ok(own.context.taintReasons?.length);
    assert.doesNotMatch(own.context.text, /"pullRequest"/, 'a tainted fire is not offered the pull request');
  });
});
