import * as assert from 'node:assert/strict';
import { collectReferences, renderMarkdownHtml, type ReplyEnv } from '../../../src/webview/markdown';
import { splitReply } from '../../../src/webview/replySections';

/** The reply rendered section by section (as the view does, sharing the references), joined. */
function sectioned(text: string, minLines: number): { html: string; count: number } {
  const sections = splitReply(text, minLines);
  const env: ReplyEnv = {};
  collectReferences(
    sections.map((s) => s.text),
    env,
  );
  // Rendered last section first, as the view does (the end is what a person following sees).
  const parts = sections.map(() => '');
  for (let i = sections.length - 1; i >= 0; i--) parts[i] = renderMarkdownHtml(sections[i].text, env);
  return { html: parts.join(''), count: sections.length };
}

function assertSame(text: string, label: string): number {
  const whole = renderMarkdownHtml(text);
  let most = 0;
  for (const minLines of [1, 2, 5]) {
    const { html, count } = sectioned(text, minLines);
    assert.equal(html, whole, `${label}: sectioned (minLines ${minLines}, ${count} sections) differs from the whole render`);
    most = Math.max(most, count);
  }
  return most;
}

const TRICKY: Record<string, string> = {
  'fence with blank lines and headings inside': 'Intro.\n\n```md\n# not a heading\n\nstill code\n\n- not a list\n```\n\nAfter.\n\n## Real heading\n\nText.',
  'tilde fence closed only by tildes, longer fence closed only by as many': 'A\n\n~~~\n```\n\nB\n~~~\n\nC\n\n````\n```\n\nD\n````\n\nE',
  'backtick line with a backtick in its info is not a fence': 'A\n\n```a`b\n\nB\n\n```\n\nC\n\n```\n\nD',
  'unclosed fence runs to the end': 'A\n\n```js\nx\n\ny\n\n# z',
  'loose list across blank lines, nested': '- a\n\n- b\n\n  - c\n\n    more c\n\n- d\n\nafter\n\n1. one\n\n2. two\n\n   para in two\n\n10) ten\n\nend',
  'fence inside a list item with blank lines':
    '- item\n\n  ```\n  code\n\n  more\n  ```\n\n- next\n\ntext\n\n1. Install:\n\n   ```bash\n   npm i\n\n   npm t\n   ```\n\nDone.',
  'indented fence ambiguity (list item vs top level)': '- a\n\n  ```\n\nb\n  ```\n\nc\n\nd\n\n```\n\ne',
  'tables and text after': '| a | b |\n|---|:-:|\n| 1 | 2 |\n\n| c |\n|---|\n| 3 |\n\npara\n\n| x |\n|---|\n\nend',
  'reference definitions used before they are defined':
    'See [the docs][d] and [Other].\n\nMore [d].\n\n[d]: https://example.com/d "Docs"\n\nText\n\n[other]: https://example.com/o\n\n[d]: https://example.com/second-wins-not\n\n[D] again.',
  'reference-looking lines inside code and paragraphs':
    '```\n[x]: https://example.com/in-code\n```\n\nA paragraph\n[y]: https://example.com/not-a-def\n\n[x] and [y]',
  'blockquotes split by blank lines, lazy lines': '> a\nlazy\n\n> b\n>\n> c\n\n> ```\n> code\n\nafter\n\n>     indented',
  'indented code across blank lines': 'p\n\n    code 1\n\n    code 2\n\n\n    code 3\nafter\n\n\tcode with tab\n\n\ttab again\n\nend',
  'setext headings and thematic breaks': 'Title\n=====\n\ntext\n\n---\n\nSub\n---\n\n***\n\n- - -\n\n* * *\n\nend',
  'task lists and file paths and links':
    '- [x] done src/a.ts:3\n- [ ] todo\n\nSee `src/b.ts` and https://example.com\n\n- [ ] more\n\n[link](javascript:alert(1)) ![img](http://x/y.png)',
  'CRLF and NUL': 'a\r\n\r\n```\r\nx\r\n\r\ny\r\n```\r\n\r\nb\u0000c\r\n\r\n# h\r\nend',
  'html off: raw tags stay text across sections': '<div>\n\n<script>alert(1)</script>\n\n</div>\n\ntext',
};

describe('reply sections (replySections.ts): rendering section by section equals rendering at once', function () {
  for (const [label, text] of Object.entries(TRICKY)) {
    it(label, function () {
      assertSame(text, label);
    });
  }

  it('does split the tricky inputs (the tests above compare more than one section)', function () {
    assert.ok(splitReply(TRICKY['tables and text after'], 1).length >= 3);
    assert.ok(splitReply(TRICKY['reference definitions used before they are defined'], 1).length >= 4);
    assert.ok(splitReply(TRICKY['fence with blank lines and headings inside'], 1).length >= 3);
  });

  it('never splits inside a fence, a list, or after an ambiguous indented fence', function () {
    const fence = splitReply('a\n\n```\n\nb\n\n```\n\nc', 1).map((s) => s.text);
    assert.deepEqual(fence, ['a\n', '```\n\nb\n\n```\n', 'c']);
    const list = splitReply('- a\n\n- b\n\n  c\n\nd', 1).map((s) => s.text);
    assert.deepEqual(list, ['- a\n\n- b\n\n  c\n', 'd']);
    const ambiguous = splitReply('a\n\nb\n\n  ```\n\nc\n\nd', 1).map((s) => s.text);
    assert.deepEqual(ambiguous, ['a\n', 'b\n\n  ```\n\nc\n\nd']);
  });

  it('counts code lines and fences for the size estimate', function () {
    const [first] = splitReply('intro\n```ts\n1\n2\n3\n```', 1);
    assert.deepEqual({ lines: first.lines, codeLines: first.codeLines, fences: first.fences }, { lines: 6, codeLines: 3, fences: 1 });
  });

  it('keeps sections at least minLines long', function () {
    const text = Array.from({ length: 100 }, (_, i) => `para ${i}`).join('\n\n');
    const sections = splitReply(text, 40);
    assert.ok(sections.length >= 4);
    for (const s of sections.slice(0, -1)) assert.ok(s.lines >= 39, `a section of ${s.lines} lines`);
  });

  it('randomized replies (seeded) render the same section by section', function () {
    const seed = Number(process.env.SECTIONS_SEED ?? Date.now() % 100_000);
    let state = seed;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    const pieces = [
      '',
      '',
      'text',
      'more *text* src/a.ts:1',
      '# head',
      'Under\n===',
      '- item',
      '  - nested',
      '  cont',
      '1. one',
      '2) two',
      '```',
      '```ts',
      '~~~',
      '````',
      '  ```',
      '   ~~~',
      '    indented',
      '\tindented tab',
      '> quote',
      '>',
      '| a | b |',
      '|---|---|',
      '[r]: https://example.com/r',
      '[r] and [s][]',
      '[s]: https://example.com/s',
      '---',
      '* * *',
      '- [ ] task',
    ];
    let split = 0;
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 5 + rand(40) }, () => pieces[rand(pieces.length)]);
      const text = lines.join('\n');
      const count = assertSame(text, `seed ${seed}, round ${round}: ${JSON.stringify(text)}`);
      if (count > 1) split++;
    }
    assert.ok(split > 15, `only ${split} of 300 random replies were split (seed ${seed})`);
  });
});
