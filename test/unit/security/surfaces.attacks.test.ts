import * as assert from 'node:assert/strict';
import { buildEscalationPayload, slackMessage } from '../../../src/core/chores/escalationPayload';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import { forCiLog, forGitHub, forLabel, forNotification, forSlack, forTerminal, notice } from '../../../src/core/security/surfaceText';
import { attack } from './attackTally';

// Review 2026-12c finding 9: model and repository text reached Slack as mrkdwn. The probe's four
// inputs through the real `slackMessage`: every `<…>` Slack would read as a ping or a link must be
// Tasklane's own (its run link and review link), never one from the text.
const run = {
  runId: 'run-1',
  choreId: 'fixer',
  fireKey: 'k',
  attempt: 0,
  cause: 'manual',
  status: 'failed',
  reason: 'done <!channel> see <https://evil.example/x|Open the proposal in VS Code>',
  startedAt: 0,
  endedAt: 1,
  steps: [
    { seq: 1, name: 'read_file', args: '{}', status: 'ok', startedAt: 0, durationMs: 1, result: 'README says <!here> and <https://evil.example/y|Review>' },
  ],
  usage: { iterations: 1, elapsedMs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
} as unknown as ChoreRunRecord;

/**
 * Every `<…>` Slack reads as a control sequence (a ping, a user, a link) in the message's mrkdwn:
 * the fallback `text` and every `mrkdwn` object (a `plain_text` header is never parsed).
 */
function slackControls(message: Record<string, unknown>): string[] {
  const mrkdwn: string[] = [String(message.text)];
  JSON.stringify(message, (_key, value: unknown) => {
    const v = value as { type?: string; text?: unknown };
    if (v && v.type === 'mrkdwn' && typeof v.text === 'string') mrkdwn.push(v.text);
    return value;
  });
  return mrkdwn.flatMap((text) => [...text.matchAll(/<([^<>]*)>/g)].map((m) => m[1]));
}

describe('security: escalations to Slack carry model text as text (review 2026-12c finding 9)', () => {
  const cases: Array<[string, { id: string; name: string }, ChoreRunRecord]> = [
    ["a whole-channel ping from the model's reason", { id: 'fixer', name: 'Fixer' }, run],
    ['a whole-channel ping from the chore name', { id: 'fixer', name: 'Fixer <!channel>' }, { ...run, reason: 'x' } as ChoreRunRecord],
    ['a link whose text imitates the real Review link', { id: 'fixer', name: 'Fixer' }, { ...run, steps: [] } as ChoreRunRecord],
    ['a disguised link from a file the run read', { id: 'fixer', name: 'Fixer' }, { ...run, reason: 'x' } as ChoreRunRecord],
  ];
  for (const [what, chore, record] of cases) {
    it(what, async () => {
      await attack('slack mrkdwn', () => {
        const message = slackMessage(buildEscalationPayload(chore, record, 'repo'));
        assert.deepEqual(slackControls(message), [], JSON.stringify(message));
        assert.match(JSON.stringify(message), /&lt;!channel&gt;|&lt;!here&gt;|&lt;https:\/\/evil/);
      });
    });
  }
});

// The neutraliser per surface, each against the active syntax of that surface.
describe('surface text: one neutraliser per surface', () => {
  it('notifications: no VS Code link survives, every character stays readable', () => {
    const text = '[x](command:workbench.action.terminal.new) [y] (https://a.example) $(zap)\u202Eabc\nnext';
    const shown = forNotification(text);
    assert.doesNotMatch(shown, /\]\(/);
    assert.equal(shown, '[x] (command:workbench.action.terminal.new) [y] (https://a.example) $\\(zap)<U+202E>abc ⏎ next');
    assert.equal(
      notice`Tasklane: no run ${'[a](command:x)'}; see [the docs](https://literal.example).`,
      'Tasklane: no run [a] (command:x); see [the docs](https://literal.example).',
    );
  });

  it('labels: no codicon and no second line', () => {
    assert.equal(forLabel('$(warning) a\nb\u200B'), '$\\(warning) a ⏎ b<U+200B>');
  });

  it('terminal: ESC and the bell are written out, lines stay', () => {
    assert.equal(forTerminal('\u001b]8;;https://x\u0007link\u001b]8;;\u0007\r\nok'), '<U+001B>]8;;https://x<U+0007>link<U+001B>]8;;<U+0007>\nok');
  });

  it('CI log: one line that never starts a workflow command', () => {
    assert.equal(forCiLog('::add-mask::x'), '<U+003A>:add-mask::x');
    assert.equal(forCiLog('  ::error::x'), '  <U+003A>:error::x');
    assert.equal(forCiLog('a\n::error::x'), 'a ⏎ ::error::x');
  });

  it('Slack and GitHub: their markup is text', () => {
    assert.equal(forSlack('a & <!channel> <https://x|y>'), 'a &amp; &lt;!channel&gt; &lt;https://x|y&gt;');
    assert.equal(forGitHub('<!-- tas<!-- tasklane:x -->klane:chore=y -->'), '&lt;!-- tas&lt;!-- tasklane:x --&gt;klane:chore=y --&gt;');
  });
});
