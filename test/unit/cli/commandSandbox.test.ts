/**
 * The sandbox of declared commands (cli/commandSandbox.ts, issue 38): where the namespaces cannot
 * be made the chore is refused before any model call with what to do, never run unsealed; the
 * generated workflow's step installs the AppArmor profile that lets `unshare` make them on
 * Ubuntu 24.04; `network:` is declared as host names, part of the consent.
 */
import '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { commandSandbox, probe, requireSandboxFor, sandboxStepScript, SandboxError } from '../../../src/cli/commandSandbox';
import { githubWorkflow } from '../../../src/cli/githubWorkflow';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { choreDefinitionHash } from '../../../src/core/consent/definitionHash';
import { enableDetail } from '../../../src/host/chores/choreCommands';
import { toChoreReview } from '../../../src/host/chores/choreViews';
import { choresYaml, TEST_CLI } from '../../support/ciRepo';

describe('cli: declared commands run sealed, or not at all', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const temp = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-sandbox-'));
    dirs.push(dir);
    return dir;
  };
  /** An `unshare` that refuses as Ubuntu 24.04's does without a profile, and the sysctl file saying `value`. */
  const refusing = (value: string) => {
    const dir = temp();
    const unshare = path.join(dir, 'unshare');
    fs.writeFileSync(unshare, '#!/bin/sh\necho "unshare: write failed /proc/self/uid_map: Operation not permitted" >&2\nexit 1\n', { mode: 0o755 });
    const sysctl = path.join(dir, 'apparmor_restrict_unprivileged_userns');
    fs.writeFileSync(sysctl, `${value}\n`);
    return { unshare, sysctl };
  };

  it('on Ubuntu 24.04 without the profile: refused, naming AppArmor, the workflow step and the profile to install', () => {
    const { unshare, sysctl } = refusing('1');
    const result = probe([unshare], sysctl);
    assert.ok('problem' in result);
    assert.match(result.problem, /this machine refused them \(unshare: write failed \/proc\/self\/uid_map: Operation not permitted\)/);
    assert.match(result.problem, /AppArmor restricts user namespaces here/);
    assert.match(result.problem, /tasklane chores ci github.*"Let declared commands run sealed"/);
    assert.match(result.problem, /sudo apparmor_parser -r \/etc\/apparmor\.d\/tasklane-unshare/);
    assert.match(result.problem, /Commands never run unsealed/);
  });

  it('elsewhere: refused, naming util-linux 2.38 and user namespaces; without unshare: says to install it', () => {
    const { unshare, sysctl } = refusing('0');
    const result = probe([unshare], sysctl);
    assert.ok('problem' in result);
    assert.match(result.problem, /util-linux 2\.38 or later and user namespaces turned on/);
    assert.doesNotMatch(result.problem, /AppArmor/);
    const none = probe([path.join(temp(), 'no-unshare')], sysctl);
    assert.ok('problem' in none);
    assert.match(none.problem, /not installed: install util-linux 2\.38/);
  });

  it('here, the namespaces are made; a chore without commands or checks needs none', () => {
    const result = probe();
    assert.ok('unshare' in result, JSON.stringify(result));
    assert.deepEqual(commandSandbox(result.unshare, false).wrap(['npm', 'test']).slice(-3), ['--', 'npm', 'test']);
    assert.ok(commandSandbox(result.unshare, false).wrap(['x']).includes('--net'));
    assert.ok(!commandSandbox(result.unshare, true).wrap(['x']).includes('--net'), 'a chore that lists hosts keeps the network');
    assert.ok(!commandSandbox(result.unshare, true).wrap(['x']).includes('--map-root-user'), 'root in the namespace could unmount its /proc');
    assert.doesNotThrow(() => requireSandboxFor({ id: 'c', commands: ['npm test'] }));
    // `chores run` asks before any model call (main.ts), and refuses with the probe's words.
    const refused = () => probe([refusing('1').unshare], refusing('1').sysctl);
    assert.throws(
      () => requireSandboxFor({ id: 'c', verify: ['npm test'] }, refused),
      (e: Error) => e instanceof SandboxError && /^chore c: declared commands run sealed/.test(e.message),
    );
    assert.doesNotThrow(() => requireSandboxFor({ id: 'c' }, refused), 'a chore without commands or checks runs anywhere');
  });

  it("the workflow's step installs the profile with sudo only where AppArmor restricts, and the step is there only for chores with commands or checks", () => {
    const dir = temp();
    const log = path.join(dir, 'sudo.log');
    // A stand-in sudo on PATH that records what it is asked, and what tee is given.
    fs.writeFileSync(path.join(dir, 'sudo'), `#!/bin/sh\necho "$@" >> ${JSON.stringify(log)}\nif [ "$1" = tee ]; then cat >> ${JSON.stringify(log)}; fi\n`, {
      mode: 0o755,
    });
    const run = (value: string | undefined) => {
      fs.rmSync(log, { force: true });
      const sysctl = path.join(dir, `restrict-${value ?? 'absent'}`);
      if (value !== undefined) fs.writeFileSync(sysctl, `${value}\n`);
      const script = sandboxStepScript().replace('/proc/sys/kernel/apparmor_restrict_unprivileged_userns', sysctl);
      const ran = spawnSync('bash', ['-e', '-c', script], { env: { PATH: `${dir}:${process.env.PATH}` }, encoding: 'utf8' });
      assert.equal(ran.status, 0, ran.stderr);
      return fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
    };
    assert.equal(run(undefined), '', 'no AppArmor restriction: nothing to do, no sudo');
    assert.equal(run('0'), '');
    assert.equal(
      run('1'),
      [
        'tee /etc/apparmor.d/tasklane-unshare',
        'abi <abi/4.0>,',
        'include <tunables/global>',
        'profile tasklane-unshare /usr/bin/unshare flags=(unconfined) {',
        '  userns,',
        '}',
        'apparmor_parser -r /etc/apparmor.d/tasklane-unshare',
        '',
      ].join('\n'),
    );
    const steps = (extra: string) => {
      const parsed = parseChoresFile(
        choresYaml(extra).replace('trigger: { cron: "0 2 * * *", timezone: UTC }', 'trigger: { github: { event: issues, types: [opened] } }'),
      );
      assert.deepEqual(
        parsed.diagnostics.filter((d) => d.severity === 'error'),
        [],
      );
      const workflow = parseYaml(githubWorkflow(parsed.chores, { hashOf: () => 'ab'.repeat(32), cli: TEST_CLI })) as {
        jobs: Record<string, { steps?: Array<{ name?: string }> }>;
      };
      return (workflow.jobs['chore-fix-answer']?.steps ?? []).map((s) => s.name ?? '');
    };
    const withCommands = steps('commands: ["npm test"]\nsetup: ["npm ci"]');
    const sealed = withCommands.indexOf('Let declared commands run sealed');
    assert.ok(sealed >= 0 && sealed < withCommands.indexOf('Set up 1') && sealed < withCommands.indexOf('Hand the keys to Tasklane'), withCommands.join(', '));
    assert.ok(steps('verify: ["npm test"]').includes('Let declared commands run sealed'));
    assert.ok(!steps('').includes('Let declared commands run sealed'));
  });

  it('network: lists host names, only beside commands or checks, and is part of the consent hash', () => {
    const parse = (extra: string) => parseChoresFile(choresYaml(extra));
    const errors = (extra: string) =>
      parse(extra)
        .diagnostics.filter((d) => d.severity === 'error')
        .map((d) => d.message)
        .join('\n');
    const withHosts = parse('commands: ["npm test"]\nnetwork: ["Registry.npmjs.org", "registry.npmjs.org", "*.pypi.org"]');
    assert.deepEqual(withHosts.diagnostics, []);
    assert.deepEqual(withHosts.chores[0]?.network, ['registry.npmjs.org', '*.pypi.org']);
    const without = parse('commands: ["npm test"]').chores[0]!;
    assert.equal(without.network, undefined, 'absent when not declared, so other hashes stay');
    assert.notEqual(choreDefinitionHash(withHosts.chores[0]!), choreDefinitionHash(without));
    const shown = enableDetail(withHosts.chores[0]!, toChoreReview(withHosts.chores[0]!));
    assert.match(
      shown,
      /Network its commands and checks get on the command line \(listing any host opens the whole network to them\): registry\.npmjs\.org, \*\.pypi\.org/,
    );
    assert.doesNotMatch(enableDetail(without, toChoreReview(without)), /Network/);
    assert.match(errors('commands: ["npm test"]\nnetwork: ["https://registry.npmjs.org/"]'), /is not a host name/);
    assert.match(errors('commands: ["npm test"]\nnetwork: []'), /network needs at least one host/);
    assert.match(errors('network: ["registry.npmjs.org"]'), /network only applies to the commands: and verify: checks/);
  });
});
