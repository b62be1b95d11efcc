import * as assert from 'node:assert/strict';
import { DiagnosticsTrigger, GitHeadTrigger, globMatch } from '../../../src/core/chores/eventTriggers';
import type { ChoreFireContext } from '../../../src/core/chores/fireContext';
import { FakeClock } from '../../fakes/fakeClock';
import { choresFrom } from './runnerHarness';

const chores = choresFrom(`chores:
  - id: errors
    name: Errors appeared
    trigger: { diagnostics: { files: "src/**", severity: error } }
    prompt: Fix them.
  - id: problems
    name: Problems appeared
    trigger: { diagnostics: { files: ["lib/*.ts"], severity: warning }, debounceMs: 500 }
    prompt: Look.
  - id: head
    name: Head moved
    trigger: { git: head }
    prompt: Review.
`);

describe('diagnostics and git HEAD triggers: debounced, coalesced, one fire per burst', () => {
  it('parses both triggers with their defaults', () => {
    assert.deepEqual(
      chores.map((c) => c.trigger),
      [
        { kind: 'diagnostics', globs: ['src/**'], severity: 'error', debounceMs: 3000 },
        { kind: 'diagnostics', globs: ['lib/*.ts'], severity: 'warning', debounceMs: 500 },
        { kind: 'git', watch: 'head', debounceMs: 2000 },
      ],
    );
    assert.throws(() => choresFrom('chores:\n  - id: x\n    name: x\n    trigger: { git: tags }\n    prompt: p\n'), /trigger.git must be head/);
  });

  it('matches globs the way chores.yaml means them', () => {
    assert.ok(globMatch('src/**')('src/a/b.ts'));
    assert.ok(globMatch('src/**/*.ts')('src/a.ts'));
    assert.ok(!globMatch('lib/*.ts')('lib/deep/a.ts'));
    assert.ok(globMatch('{src,lib}/*.{ts,js}')('lib/a.js'));
    assert.ok(!globMatch('src/*.ts')('src/a.tsx'));
  });

  it('errors appearing in a wave of reports fire once, with every file; steady, fixed or unmatched ones fire nothing', async () => {
    const clock = new FakeClock();
    const fired: Array<[string, ChoreFireContext]> = [];
    const trigger = new DiagnosticsTrigger(clock, (id, context) => fired.push([id, context]));
    trigger.configure(chores);
    trigger.prime([{ path: 'src/old.ts', errors: 2, warnings: 0, first: 'old' }]);
    // The language server republishes what was there at start: not news.
    assert.deepEqual(trigger.update([{ path: 'src/old.ts', errors: 2, warnings: 0 }]), []);
    // A wave: two files get errors, one of them twice as the server refines.
    trigger.update([{ path: 'src/a.ts', errors: 1, warnings: 0, first: 'line 3: x' }]);
    await clock.advance(1000);
    trigger.update([
      { path: 'src/b.ts', errors: 1, warnings: 0, first: 'line 1: y' },
      { path: 'docs/readme.md', errors: 4, warnings: 0 },
    ]);
    await clock.advance(1000);
    trigger.update([{ path: 'src/a.ts', errors: 3, warnings: 0, first: 'line 3: x' }]);
    await clock.advance(2999);
    assert.equal(fired.length, 0, 'still within the quiet time');
    await clock.advance(1);
    assert.equal(fired.length, 1);
    const [id, context] = fired[0];
    assert.equal(id, 'errors');
    assert.deepEqual(context, {
      kind: 'diagnostics',
      severity: 'error',
      files: [
        { path: 'src/b.ts', count: 1, first: 'line 1: y' },
        { path: 'src/a.ts', count: 3, first: 'line 3: x' },
      ],
    });
    // Fewer errors (a fix) fires nothing; warnings do not count for a severity: error chore.
    trigger.update([{ path: 'src/a.ts', errors: 1, warnings: 5 }]);
    await clock.advance(10_000);
    assert.equal(fired.length, 1);
    // A warning in lib fires the warning chore, on its own debounce.
    trigger.update([{ path: 'lib/x.ts', errors: 0, warnings: 1, first: 'w' }]);
    await clock.advance(500);
    assert.deepEqual(
      fired.map(([i]) => i),
      ['errors', 'problems'],
    );
  });

  it('a storm of reports cannot postpone the fire past the max wait', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const trigger = new DiagnosticsTrigger(clock, (id) => fired.push(id));
    trigger.configure(chores);
    for (let i = 1; i <= 40; i++) {
      trigger.update([{ path: 'src/a.ts', errors: i, warnings: 0 }]);
      await clock.advance(1000);
    }
    assert.equal(fired.length, 1, 'fired once at the 30 s max wait, then the storm continued');
  });

  it('HEAD moves in a burst (a pull) are one fire from the first commit to the last; there and back is none', async () => {
    const clock = new FakeClock();
    const fired: ChoreFireContext[] = [];
    const trigger = new GitHeadTrigger(clock, (_id, context) => fired.push(context));
    trigger.configure(chores);
    assert.deepEqual(trigger.observe({ commit: 'aaa', branch: 'main' }), [], 'the first observation is the baseline');
    trigger.observe({ commit: 'bbb', branch: 'main' }, { pulled: true });
    await clock.advance(500);
    trigger.observe({ commit: 'ccc', branch: 'main' });
    await clock.advance(2000);
    assert.deepEqual(fired, [{ kind: 'git', change: 'pull', from: 'aaa', to: 'ccc', branch: 'main' }]);
    // A commit.
    trigger.observe({ commit: 'ddd', branch: 'main' });
    await clock.advance(2000);
    assert.deepEqual(fired[1], { kind: 'git', change: 'commit', from: 'ccc', to: 'ddd', branch: 'main' });
    // Checkout of another branch and back, quickly: nothing.
    trigger.observe({ commit: 'eee', branch: 'feature' });
    trigger.observe({ commit: 'ddd', branch: 'main' });
    await clock.advance(2000);
    assert.equal(fired.length, 2);
    // A checkout that stays.
    trigger.observe({ commit: 'eee', branch: 'feature' });
    await clock.advance(2000);
    assert.deepEqual(fired[2], { kind: 'git', change: 'checkout', from: 'ddd', to: 'eee', branch: 'feature' });
    // A status refresh with the same HEAD fires nothing.
    trigger.observe({ commit: 'eee', branch: 'feature' });
    await clock.advance(5000);
    assert.equal(fired.length, 3);
  });
});
