import * as assert from 'node:assert/strict';
import { countLineChanges, splitLines } from '../../../src/core/approval/changes/lineDiff';

/** Reference: classic O(NM) longest common subsequence, only for checking the fast path. */
function lcsCounts(before: string, after: string): { added: number; removed: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const lcs = table[0][0];
  return { added: b.length - lcs, removed: a.length - lcs };
}

/** Deterministic PRNG (mulberry32) so the property test is reproducible. */
function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('approval: line diff counts', () => {
  it('splits lines keeping their terminators', () => {
    assert.deepEqual(splitLines('a\nb\r\nc'), ['a\n', 'b\r\n', 'c']);
    assert.deepEqual(splitLines('a\n'), ['a\n']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('\n\n'), ['\n', '\n']);
  });

  it('counts typical edits like git --numstat', () => {
    assert.deepEqual(countLineChanges('a\nb\nc\n', 'a\nb\nc\n'), { added: 0, removed: 0 });
    assert.deepEqual(countLineChanges('a\nb\nc\n', 'a\nB\nc\n'), { added: 1, removed: 1 });
    assert.deepEqual(countLineChanges('a\nb\nc\n', 'a\nb\nc\nd\ne\n'), { added: 2, removed: 0 });
    assert.deepEqual(countLineChanges('a\nb\nc\n', 'a\nc\n'), { added: 0, removed: 1 });
    assert.deepEqual(countLineChanges('x\na\nb\n', 'a\nb\ny\n'), { added: 1, removed: 1 });
    assert.deepEqual(countLineChanges('a', 'a\n'), { added: 1, removed: 1 }, 'adding the final newline changes the last line');
    assert.deepEqual(countLineChanges('a\nb\n', 'a\r\nb\r\n'), { added: 2, removed: 2 }, 'line-ending conversion touches every line');
  });

  it('counts created and deleted files as all lines', () => {
    assert.deepEqual(countLineChanges(null, 'a\nb\nc'), { added: 3, removed: 0 });
    assert.deepEqual(countLineChanges('a\nb\n', null), { added: 0, removed: 2 });
    assert.deepEqual(countLineChanges(null, ''), { added: 0, removed: 0 });
  });

  it('matches a reference LCS on 300 random edits', () => {
    const random = prng(42);
    const alphabet = ['a\n', 'b\n', 'c\n', 'd\n', '}\n', '\n'];
    for (let round = 0; round < 300; round += 1) {
      const lines = Array.from({ length: Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]);
      const edited = [...lines];
      const edits = Math.floor(random() * 8);
      for (let e = 0; e < edits; e += 1) {
        const at = Math.floor(random() * (edited.length + 1));
        if (random() < 0.5) edited.splice(at, 1);
        else edited.splice(at, 0, alphabet[Math.floor(random() * alphabet.length)]);
      }
      const before = lines.join('');
      const after = edited.join('');
      assert.deepEqual(countLineChanges(before, after), lcsCounts(before, after), JSON.stringify({ before, after }));
    }
  });

  it('falls back to a multiset count past the distance cap (moved lines then count as unchanged)', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'd\nc\nb\na\n';
    assert.deepEqual(countLineChanges(before, after), { added: 3, removed: 3 });
    assert.deepEqual(countLineChanges(before, after, 1), { added: 0, removed: 0 });
  });

  it('stays fast on a large file with scattered changes', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`);
    const edited = lines.map((line, i) => (i % 100 === 0 ? `changed ${i}\n` : line));
    const started = process.hrtime.bigint();
    assert.deepEqual(countLineChanges(lines.join(''), edited.join('')), { added: 200, removed: 200 });
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 2000);
  });
});
