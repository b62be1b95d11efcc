/**
 * A streaming reply renders as Markdown while it streams (src/webview/streamMarkdown.ts): each
 * block once it is complete, the block still forming as text; what is settled renders to what the
 * whole reply renders to, whatever the deltas' sizes.
 */
import * as assert from 'node:assert/strict';
import { renderMarkdownHtml } from '../../../src/webview/markdown';
import { MarkdownStream } from '../../../src/webview/streamMarkdown';
import { mulberry32 } from '../../support/seededRandom';

const REPLY = [
  '## Plan',
  '',
  'I will **read** `src/greet.js` first, then:',
  '',
  '- add `greetAll`',
  '- test it',
  '',
  '  still the second item',
  '',
  '```js',
  'function greetAll(names) {',
  '',
  '  return names.map(greet);',
  '}',
  '```',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  'Done.',
].join('\n');

/** Streams `text` in the given pieces; returns the settled parts and the tail at the end. */
function stream(pieces: string[]): { settled: string[]; tail: string } {
  const s = new MarkdownStream();
  const settled: string[] = [];
  for (const piece of pieces) {
    const done = s.push(piece);
    if (done !== undefined) settled.push(done);
  }
  return { settled, tail: s.tail };
}

describe('webview: a streaming reply as Markdown', () => {
  it('a paragraph renders once the next block begins; the block forming stays text', () => {
    const s = new MarkdownStream();
    assert.equal(s.push('I will **read** it'), undefined);
    assert.equal(s.push(' first.\n'), undefined, 'a paragraph may go on after a newline');
    assert.equal(s.push('\n'), undefined);
    assert.equal(s.push('Then'), 'I will **read** it first.\n\n', 'the next paragraph began: the first is complete');
    assert.equal(s.push(' more.\n'), undefined);
    assert.equal(s.tail, 'Then more.\n');
  });

  it('a code block is one block across its blank lines, complete once closed and followed', () => {
    const { settled, tail } = stream(['```js\nconst a = 1;\n\n', 'const b = 2;\n', '```\n', '\nAfter.\n']);
    assert.deepEqual(settled, ['```js\nconst a = 1;\n\nconst b = 2;\n```\n\n']);
    assert.equal(tail, 'After.\n');
  });

  it('a list item’s continuation after a blank line stays with its list', () => {
    const { settled } = stream(['- one\n', '\n', '  more of one\n', '\nNext.\n']);
    assert.deepEqual(settled, ['- one\n\n  more of one\n\n']);
  });

  it('whatever the deltas, the settled parts and the tail are the reply, and render as the whole does', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = mulberry32(seed);
      const pieces: string[] = [];
      for (let at = 0; at < REPLY.length;) {
        const size = 1 + Math.floor(random() * 12);
        pieces.push(REPLY.slice(at, at + size));
        at += size;
      }
      const { settled, tail } = stream(pieces);
      assert.equal(settled.join('') + tail, REPLY, `seed ${seed}: nothing lost or repeated`);
      assert.equal(tail, 'Done.', `seed ${seed}: every block but the last rendered before the end`);
      assert.ok(settled.length >= 3, `seed ${seed}: blocks render as they complete, not all at the end (${settled.length})`);
      assert.equal(
        [...settled, tail].map((part) => renderMarkdownHtml(part)).join(''),
        renderMarkdownHtml(REPLY),
        `seed ${seed}: rendered in parts as the whole reply renders`,
      );
    }
  });
});
