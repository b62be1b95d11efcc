import * as assert from 'node:assert/strict';
import { fitText, MAX_IMAGES, MAX_LINKS, neutralise, outputProblems } from '../../../src/cli/outputRules';

describe('cli: the rules of proposed outputs (checked before task_end, cut to fit, neutralised)', () => {
  it('cuts text at the limit and says how much was cut; text that fits is unchanged', () => {
    assert.equal(fitText('short', 100), 'short');
    const cut = fitText('y'.repeat(1_000), 200);
    assert.equal(cut.length, 200);
    assert.match(cut, /\[Truncated by Tasklane: 800 more characters were over GitHub's limit\.\]$/);
  });

  it('names every problem of a task_end output against the declared outputs; undeclared kinds and other keys', () => {
    const declared = { labels: { allowed: ['bug'], max: 1 }, issue: { max: 1 } };
    assert.deepEqual(outputProblems({ status: 'done', labels: ['bug'], issues: [{ title: 't', body: 'b' }] }, declared), []);
    assert.deepEqual(
      outputProblems(
        {
          labels: ['bug', 'x'],
          comment: 'hi',
          issues: [
            { title: '', body: 'b' },
            { title: 't', body: 'b' },
          ],
        },
        declared,
      ),
      [
        '"comment": this chore may not write comment; leave the key out',
        '"labels": "x" not in the allowed labels bug',
        '"labels": at most 1',
        '"issues" must be a list of {"title": "…", "body": "…"} with a non-empty title',
      ],
    );
    assert.deepEqual(outputProblems({ comment: null, pullRequest: null }, declared), [], 'an explicit null proposes nothing');
  });

  it('keeps mentions of the allowed people only, and links and images on GitHub only, up to the caps', () => {
    const policy = { allowed: ['Asker'] };
    assert.equal(neutralise('@asker and @Someone and team@example.com and `@code`', policy), '@asker and `@Someone` and team@example.com and `@code`');
    assert.equal(neutralise('@org/team-a, (@everyone)', policy), '`@org/team-a`, (`@everyone`)');
    assert.equal(neutralise('[x](https://evil.example/a) [y](https://github.com/o/r)', policy), 'x (`https://evil.example/a`) [y](https://github.com/o/r)');
    assert.equal(neutralise('![p](https://t.example/p.gif) <img src="https://t.example/q.gif">', policy), '[image from t.example removed] [image removed]');
    const many = Array.from({ length: MAX_LINKS + 1 }, (_, i) => `https://github.com/o/r/issues/${i}`).join(' ');
    assert.equal((neutralise(many, policy).match(/`https:/g) ?? []).length, 1, 'the link past the cap is not clickable');
    const images = Array.from({ length: MAX_IMAGES + 1 }, () => '![a](https://user-images.githubusercontent.com/1.png)').join(' ');
    assert.equal((neutralise(images, policy).match(/not shown/g) ?? []).length, 1);
  });
});
