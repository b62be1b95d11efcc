import * as assert from 'node:assert/strict';
import { declaredCommandProblem, escapeHatch, parseCommandLine } from '../../../src/core/approval/commands/commandLine';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { choreDefinitionHash } from '../../../src/core/consent/definitionHash';

const argv = (line: string) => {
  const parsed = parseCommandLine(line);
  assert.ok('argv' in parsed, `${line}: ${'problem' in parsed ? parsed.problem : ''}`);
  return parsed.argv;
};

describe('declared commands: parsed into argv, never through a shell', () => {
  it('splits words and honours quotes', () => {
    assert.deepEqual(argv('npm test'), ['npm', 'test']);
    assert.deepEqual(argv('  npm   run  lint  '), ['npm', 'run', 'lint']);
    assert.deepEqual(argv(`node scripts/check.js 'a b' "c \\"d\\"" e'f'`), ['node', 'scripts/check.js', 'a b', 'c "d"', 'ef']);
  });

  it('refuses what a shell would turn into another command, quoted or not, naming it', () => {
    for (const [line, named] of [
      ['npm test | tee out', /pipe/],
      ['npm test && npm publish', /&&/],
      ['npm test; rm -rf .', /;/],
      ['npm test > out.txt', /redirection/],
      ['echo "$(cat ~/.ssh/id_rsa)"', /substitution/],
      ['echo `id`', /backticks/],
      ['echo $HOME', /variable/],
      ['npm test\nnpm publish', /line break/],
    ] as const) {
      const parsed = parseCommandLine(line);
      assert.ok('problem' in parsed, `${line} parsed`);
      assert.match(parsed.problem, named);
    }
    assert.match((parseCommandLine(`echo 'open`) as { problem: string }).problem, /not closed/);
  });

  it('names escape hatches, which only unsafe: true lets through', () => {
    for (const line of [
      'node -e "process.exit(0)"',
      'npx some-package',
      'npm exec foo',
      'curl https://example.com',
      'git push origin main',
      'gh api /user',
      'python3 -c "print(1)"',
      'bash -c "ls"',
      'sudo npm test',
    ]) {
      assert.ok(escapeHatch(argv(line)), `${line} is an escape hatch`);
      assert.match(declaredCommandProblem(line) ?? '', /unsafe: true/, line);
      assert.equal(declaredCommandProblem(line, true), undefined, `${line} with unsafe`);
    }
    for (const line of ['npm test', 'npm run lint', 'node scripts/check.js', 'git status', 'gh pr view 3', 'python3 -m pytest']) {
      assert.equal(escapeHatch(argv(line)), undefined, line);
    }
    assert.match(declaredCommandProblem('npm test | cat', true) ?? '', /pipe/, 'unsafe never allows a shell construct');
  });
});

describe('declared commands in chores.yaml', () => {
  const file = (extra: string) => `chores:
  - id: tests
    name: Keep the tests green
    trigger: { cron: "0 2 * * *" }
    prompt: Run the tests and fix what fails.
    actionSets: [files]
${extra}`;

  it('a valid list becomes the definition, grants the commands set, and is part of the consent hash', () => {
    const loaded = parseChoresFile(file('    commands: ["npm test", "npm run lint"]\n'));
    assert.deepEqual(loaded.diagnostics, []);
    const chore = loaded.chores[0]!;
    assert.deepEqual(chore.commands, ['npm test', 'npm run lint']);
    assert.deepEqual(chore.actionSets, ['files', 'commands']);
    const other = parseChoresFile(file('    commands: ["npm test", "npm run lint -- --fix"]\n')).chores[0]!;
    assert.notEqual(choreDefinitionHash(chore), choreDefinitionHash(other), 'changing commands: asks again');
    const none = parseChoresFile(file('')).chores[0]!;
    assert.equal('commands' in none, false, 'a chore without commands keeps the hash it had');
  });

  it('a line a shell would split, or an escape hatch, is an error on that line', () => {
    const loaded = parseChoresFile(file('    commands:\n      - npm test\n      - npm test && npm publish\n      - npx rimraf .\n'));
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
    assert.equal(errors.length, 2, JSON.stringify(errors));
    assert.match(errors[0]!.message, /npm test && npm publish.*&&/);
    assert.equal(errors[0]!.line, 9);
    assert.match(errors[1]!.message, /npx.*unsafe: true/);
    assert.equal(loaded.chores.length, 0, 'the chore is not loaded with a bad command');
    assert.deepEqual(parseChoresFile(file('    unsafe: true\n    commands: ["npx rimraf dist"]\n')).chores[0]?.commands, ['npx rimraf dist']);
  });
});
