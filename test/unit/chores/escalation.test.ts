import * as assert from 'node:assert/strict';
import { sendEscalation } from '../../../src/core/chores/escalation';
import type { SecretPort } from '../../../src/core/chores/escalation';
import { buildEscalationPayload } from '../../../src/core/chores/escalationPayload';
import type { EscalationPayload } from '../../../src/core/chores/escalationPayload';
import { ChoreRunLog, InMemoryRunPersistence } from '../../../src/core/chores/runLog';
import { parseSimpleMime, startHttpReceiver, startSmtpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver, SmtpReceiver } from '../../fixtures/escalationServers';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';

const secretsFrom = (values: Record<string, string>): SecretPort => ({ getSecret: async (name) => values[name] });

async function failedRun(): Promise<EscalationPayload> {
  const clock = new FakeClock(Date.parse('2025-03-05T02:00:00Z'));
  const log = new ChoreRunLog(new InMemoryRunPersistence(), clock, 30, () => 'run-42');
  const { run } = await log.start({ choreId: 'nightly-changelog', fireKey: 'chore:nightly-changelog:2025-03-05T02:00:00.000Z', cause: 'cron' });
  for (let i = 1; i <= 7; i++) {
    const step = log.stepStarted(run.runId, `step_${i}`, { n: i });
    await clock.advance(100 * i);
    log.stepEnded(run.runId, step, i === 7 ? 'error' : 'ok', i === 7 ? 'CHANGELOG.md is locked' : `result ${i}`);
  }
  log.updateUsage(run.runId, {
    iterations: 7,
    elapsedMs: 2800,
    inputTokens: 12000,
    outputTokens: 900,
    cacheReadTokens: 3000,
    cacheWriteTokens: 0,
    costUsd: 0.0421,
  });
  const ended = await log.finish(run.runId, 'failed', "successWhen (status = 'done') was false");
  return buildEscalationPayload({ id: 'nightly-changelog', name: 'Nightly changelog' }, ended, 'my-repo');
}

describe('chores: escalation payload', () => {
  it('carries chore, run id, status, reason, usage and the last five steps', async () => {
    const p = await failedRun();
    assert.equal(p.runId, 'run-42');
    assert.deepEqual(p.chore, { id: 'nightly-changelog', name: 'Nightly changelog' });
    assert.equal(p.status, 'failed');
    assert.match(p.reason, /successWhen/);
    assert.equal(p.usage.costUsd, 0.0421);
    assert.deepEqual(
      p.lastSteps.map((s) => s.name),
      ['step_3', 'step_4', 'step_5', 'step_6', 'step_7'],
    );
    assert.equal(p.lastSteps[4].status, 'error');
    assert.equal(p.lastSteps[4].durationMs, 700);
  });
});

describe('chores: escalation channels against real local servers', function () {
  this.timeout(20_000);
  let http: HttpReceiver;
  let smtp: SmtpReceiver;
  let payload: EscalationPayload;
  let logger: MemoryLogger;

  before(async () => {
    http = await startHttpReceiver();
    smtp = await startSmtpReceiver();
    payload = await failedRun();
  });
  after(async () => {
    await http.close();
    await smtp.close();
  });
  beforeEach(() => {
    http.requests.length = 0;
    smtp.messages.length = 0;
    http.respondWith(200);
    logger = new MemoryLogger();
  });

  it('posts Block Kit to a Slack webhook whose URL comes from a secret', async () => {
    const results = await sendEscalation({ slack: { urlSecret: 'team-slack' } }, payload, {
      secrets: secretsFrom({ 'team-slack': `${http.baseUrl}/services/T000/B000/XXXX` }),
      logger,
    });
    assert.deepEqual(
      results.map((r) => [r.channel, r.ok]),
      [['slack', true]],
    );
    assert.equal(http.requests.length, 1);
    const req = http.requests[0];
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/services/T000/B000/XXXX');
    assert.match(String(req.headers['content-type']), /application\/json/);
    const body = req.body as {
      text: string;
      blocks: Array<{ type: string; text?: { text: string }; fields?: Array<{ text: string }>; elements?: Array<{ text: string }> }>;
    };
    assert.match(body.text, /Nightly changelog.*failed/);
    assert.deepEqual(
      body.blocks.map((b) => b.type),
      ['header', 'section', 'section', 'section', 'context'],
    );
    const all = JSON.stringify(body.blocks);
    assert.ok(all.includes('run-42'));
    assert.ok(all.includes('successWhen'));
    assert.ok(all.includes('step_3') && all.includes('step_7') && !all.includes('step_2'));
    assert.ok(all.includes('$0.0421'));
  });

  it('posts the JSON payload to a generic webhook by plain url', async () => {
    const results = await sendEscalation({ webhook: { url: `${http.baseUrl}/hook` } }, payload, { secrets: secretsFrom({}), logger });
    assert.ok(results[0].ok);
    const body = http.requests[0].body as EscalationPayload;
    assert.equal(http.requests[0].path, '/hook');
    assert.equal(body.type, 'tasklane.chore_escalation');
    assert.equal(body.runId, 'run-42');
    assert.equal(body.status, 'failed');
    assert.equal(body.chore.id, 'nightly-changelog');
    assert.equal(body.usage.inputTokens, 12000);
    assert.equal(body.lastSteps.length, 5);
    assert.equal(body.workspace, 'my-repo');
  });

  it('sends an email over SMTP with the login from a secret', async () => {
    const results = await sendEscalation({ email: { to: ['ops@example.com', 'lead@example.com'], smtpSecret: 'ops-smtp', from: 'bot@example.com' } }, payload, {
      secrets: secretsFrom({ 'ops-smtp': smtp.url }),
      logger,
    });
    assert.deepEqual(
      results.map((r) => [r.ok, r.error?.message]),
      [[true, undefined]],
    );
    assert.equal(smtp.messages.length, 1);
    const mail = smtp.messages[0];
    assert.equal(mail.from, 'bot@example.com');
    assert.deepEqual(mail.to, ['ops@example.com', 'lead@example.com']);
    assert.equal(mail.user, 'ops');
    const parsed = parseSimpleMime(mail.raw);
    assert.match(parsed.subject, /Nightly changelog.*failed/);
    assert.match(parsed.text, /Run: {5}run-42/);
    assert.match(parsed.text, /Status: {2}failed/);
    assert.match(parsed.text, /step_7 \[error\]/);
    assert.equal((parsed.json as EscalationPayload).runId, 'run-42');
    assert.equal((parsed.json as EscalationPayload).lastSteps.length, 5);
  });

  it('says which secret is missing, and still delivers on the other channels', async () => {
    const results = await sendEscalation({ slack: { urlSecret: 'nope' }, webhook: { url: `${http.baseUrl}/hook` } }, payload, {
      secrets: secretsFrom({}),
      logger,
    });
    const slack = results.find((r) => r.channel === 'slack')!;
    assert.equal(slack.ok, false);
    assert.match(slack.error!.message, /secret "nope".*is not set/);
    assert.equal(results.find((r) => r.channel === 'webhook')!.ok, true);
    assert.equal(http.requests.length, 1);
    assert.ok(logger.lines.some((l) => l.startsWith('error [CHORE]') && l.includes('via slack failed')));
  });

  it('reports a non-2xx answer with the status, without leaking the URL', async () => {
    http.respondWith(410, { body: 'invalid_token' });
    const [result] = await sendEscalation({ slack: { urlSecret: 's' } }, payload, {
      secrets: secretsFrom({ s: `${http.baseUrl}/services/SECRET-TOKEN` }),
      logger,
    });
    assert.equal(result.ok, false);
    assert.equal(result.error!.details.status, 410);
    assert.match(result.error!.message, /answered 410 \(invalid_token\)/);
    assert.ok(!result.error!.message.includes('SECRET-TOKEN'));
  });

  it('times out a webhook that does not answer', async () => {
    http.respondWith(200, { delayMs: 2_000 });
    const started = Date.now();
    const [result] = await sendEscalation({ webhook: { url: `${http.baseUrl}/slow` } }, payload, { secrets: secretsFrom({}), logger, timeoutMs: 200 });
    assert.equal(result.ok, false);
    assert.match(result.error!.message, /timed out after 200 ms/);
    assert.ok(Date.now() - started < 1_500);
  });

  it('reports a refused SMTP login and a bad SMTP secret clearly', async () => {
    const wrong = smtp.url.replace('s3cret', 'wrong');
    const [bad] = await sendEscalation({ email: { to: ['ops@example.com'], smtpSecret: 'm' } }, payload, {
      secrets: secretsFrom({ m: wrong }),
      logger,
      timeoutMs: 3_000,
    });
    assert.equal(bad.ok, false);
    assert.match(bad.error!.message, /sending mail through 127\.0\.0\.1:\d+ failed: .*check the SMTP URL in secret "m"/);
    assert.ok(!bad.error!.message.includes('wrong'), 'no password in the message');
    const [notUrl] = await sendEscalation({ email: { to: ['ops@example.com'], smtpSecret: 'm' } }, payload, { secrets: secretsFrom({ m: 'hunter2' }), logger });
    assert.match(notUrl.error!.message, /must be an SMTP URL/);
    assert.equal(smtp.messages.length, 0);
  });
});
