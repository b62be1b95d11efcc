import * as assert from 'node:assert/strict';
import { canHighlight, classifyLink, highlight, MAX_HIGHLIGHT_CHARS, renderMarkdownHtml } from '../../../src/webview/markdown';

/** Every href="…" value in the HTML. */
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);

describe('reply Markdown: what a reply may link to and render', function () {
  describe('classifyLink', function () {
    it("lets http(s) and Tasklane's own vscode: links open outside; VS Code file links are file targets", function () {
      assert.deepEqual(classifyLink('https://example.com/a?b=1'), { kind: 'external', url: 'https://example.com/a?b=1' });
      assert.deepEqual(classifyLink('http://127.0.0.1:8080/'), { kind: 'external', url: 'http://127.0.0.1:8080/' });
      assert.equal(classifyLink('vscode://tasklane.tasklane/approval?id=a1').kind, 'external');
      assert.equal(classifyLink('vscode-insiders://Tasklane.Tasklane/approval?id=a1').kind, 'external');
      assert.deepEqual(classifyLink('vscode://file/home/me/proj/src/a.ts:12:3'), { kind: 'file', path: '/home/me/proj/src/a.ts', line: 12, column: 3 });
    });

    it("makes other extensions' vscode: links and vscode:mcp/install inert (review 2026-12b finding 17)", function () {
      for (const href of [
        'vscode:mcp/install?%7B%22name%22%3A%22docs%22%2C%22command%22%3A%22sh%22%7D',
        'vscode://vscode.git/clone?url=https%3A%2F%2Fx.example%2Frepo',
        'vscode:extension/foo.bar',
        'vscode://ms-vscode.remote-server/connect',
        'VSCODE-INSIDERS://tasklane.tasklane.evil/approval?id=1',
        'vscode://tasklane.tasklane@evil.example/approval',
      ]) {
        assert.equal(classifyLink(href).kind, 'inert', `${href} must be inert`);
      }
      const html = renderMarkdownHtml('[Open README.md](vscode:mcp/install?%7B%22name%22%3A%22docs%22%7D)');
      assert.ok(!html.includes('data-link-kind="external"'), html);
    });

    it('makes javascript:, data:, command:, mailto: and other schemes inert, however they are spelled', function () {
      for (const href of [
        'javascript:alert(1)',
        'JaVaScRiPt:alert(1)',
        'java\tscript:alert(1)',
        ' \u0001javascript:alert(1)',
        'data:text/html,<script>1</script>',
        'vbscript:msgbox',
        'command:workbench.action.terminal.new',
        'mailto:a@b.c',
        'blob:https://x/1',
        'vscode-file://vscode-app/etc/passwd',
      ]) {
        assert.equal(classifyLink(href).kind, 'inert', `${JSON.stringify(href)} must be inert`);
      }
    });

    it('turns file: URIs and workspace-relative paths into file targets with the line', function () {
      assert.deepEqual(classifyLink('file:///home/me/proj/src/a.ts'), { kind: 'file', path: '/home/me/proj/src/a.ts' });
      assert.deepEqual(classifyLink('src/a.ts#L12'), { kind: 'file', path: 'src/a.ts', line: 12 });
      assert.deepEqual(classifyLink('src/a.ts:12:3'), { kind: 'file', path: 'src/a.ts', line: 12, column: 3 });
      assert.deepEqual(classifyLink('README.md:7'), { kind: 'file', path: 'README.md', line: 7 });
      assert.deepEqual(classifyLink('./docs/My%20Notes.md'), { kind: 'file', path: './docs/My Notes.md' });
      assert.deepEqual(classifyLink('C:\\proj\\a.ts'), { kind: 'file', path: 'C:\\proj\\a.ts' });
    });

    it('keeps anchors and protocol-relative links inert', function () {
      assert.equal(classifyLink('#top').kind, 'inert');
      assert.equal(classifyLink('//evil.example/x').kind, 'inert');
      assert.equal(classifyLink('').kind, 'inert');
    });
  });

  describe('renderMarkdownHtml', function () {
    it('renders CommonMark, GFM tables, strikethrough and task lists', function () {
      const html = renderMarkdownHtml('**bold** and _em_ ~~gone~~\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n');
      assert.match(html, /<strong>bold<\/strong>/);
      assert.match(html, /<em>em<\/em>/);
      assert.match(html, /<s>gone<\/s>/);
      assert.match(html, /<table>[\s\S]*<th class="align-left">a<\/th>[\s\S]*<td class="align-right">2<\/td>/);
      assert.match(html, /<li class="task-list-item"><input type="checkbox" class="task-checkbox" disabled checked> done/);
      assert.match(html, /<input type="checkbox" class="task-checkbox" disabled> todo/);
      assert.doesNotMatch(html, /style=/, 'inline styles are blocked by the CSP: alignment must be a class');
    });

    it('shows raw HTML as text: no script, img or iframe element comes out', function () {
      const html = renderMarkdownHtml(
        '<script>alert(1)</script>\n\n<img src="http://127.0.0.1:9/x.png">\n\ninline <iframe src="https://x"></iframe> <b onclick="x()">b</b>',
      );
      assert.doesNotMatch(html, /<(script|img|iframe|b)\b/i);
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.doesNotMatch(html, /<[^>]*onclick=/i);
    });

    it('never renders an image element: a remote image is a text link, anything else a placeholder', function () {
      const html = renderMarkdownHtml('![chart](http://127.0.0.1:9/chart.png) ![x](data:image/png;base64,AAAA) ![y](javascript:alert(1))');
      assert.doesNotMatch(html, /<img/i);
      assert.match(html, /<a class="md-link md-image" href="http:\/\/127\.0\.0\.1:9\/chart\.png" data-link-kind="external"[^>]*>\[image: chart\]<\/a>/);
      assert.match(html, /<span class="md-image" title="Image not shown">\[image: x\]<\/span>/);
      assert.ok(!hrefs(html).some((h) => /^(data|javascript):/i.test(h)), `a live data:/javascript: href in ${html}`);
    });

    it('leaves no live javascript:, data: or command: link, and keeps the link text', function () {
      const html = renderMarkdownHtml(
        '[click](javascript:alert(1)) [d](data:text/html,x) [c](command:workbench.action.terminal.new) [m](mailto:a@b.c) <javascript:alert(2)>',
      );
      assert.deepEqual(hrefs(html), [], `expected no href at all in ${html}`);
      assert.match(html, /<span class="md-link-inert" title="Not a link: javascript: links are not opened from replies">click<\/span>/);
    });

    it('keeps http(s) links live and turns file links and bare paths into file links', function () {
      const html = renderMarkdownHtml(
        'See [docs](https://example.com/docs), [the file](src/a.ts#L3), `src/core/engine/agent.ts:42`, and test/unit/x.test.ts:7 or README.md. `package.json:2` Not e.g. or v1.2 or main.',
      );
      assert.match(html, /<a class="md-link" href="https:\/\/example\.com\/docs" data-link-kind="external"/);
      assert.match(html, /<a class="md-link file-link" href="#" data-link-kind="file" data-path="src\/a\.ts" data-line="3"[^>]*>the file<\/a>/);
      assert.match(html, /data-path="src\/core\/engine\/agent\.ts" data-line="42"[^>]*><code>src\/core\/engine\/agent\.ts:42<\/code><\/a>/);
      assert.match(html, /data-path="test\/unit\/x\.test\.ts" data-line="7"[^>]*>test\/unit\/x\.test\.ts:7<\/a>/);
      assert.match(html, /data-path="README\.md"[^>]*>README\.md<\/a>\./);
      assert.match(html, /data-path="package\.json" data-line="2"[^>]*><code>package\.json:2<\/code>/);
      assert.equal((html.match(/file-link/g) ?? []).length, 5, html);
    });

    it('does not linkify bare words that look like domains (main.ts is not http://main.ts)', function () {
      // Fuzzy linking is off: only links with a scheme (https://…) become web links.
      const html = renderMarkdownHtml('the main.ts file, www.example.com and https://example.org');
      assert.ok(!hrefs(html).includes('http://main.ts'), html);
      assert.match(html, /data-path="main\.ts"/);
      assert.deepEqual(hrefs(html), ['#', 'https://example.org'], html);
    });

    it('highlights fenced code with the toolbar of actions, and shows an unknown language plain', function () {
      const html = renderMarkdownHtml('```ts src/util.ts\nconst x: number = 1; // <b>\n```\n\n```brainfuck\n+++<b>\n```\n');
      assert.match(html, /<div class="code-block" data-lang="ts" data-path="src\/util\.ts">/);
      assert.match(
        html,
        /data-code-action="copy">Copy<\/button><button type="button" class="code-action" data-code-action="insert">Insert at Cursor<\/button><button type="button" class="code-action" data-code-action="propose">Propose as Edit<\/button>/,
      );
      // Escaped now, coloured by the view when the block comes into sight (data-hl says how).
      assert.match(html, /<pre><code class="hljs language-ts" data-hl="ts">const x: number = 1; \/\/ &lt;b&gt;\n<\/code>/);
      assert.match(highlight('const x: number = 1; // <b>\n', 'ts'), /^<span class="hljs-keyword">const<\/span>.*&lt;b&gt;/);
      assert.match(html, /<code class="hljs language-brainfuck">\+\+\+&lt;b&gt;\n<\/code>/);
    });

    it('leaves a block too long to highlight without a yield plain, and says which languages it colours', function () {
      const long = 'const a = 1;\n'.repeat(Math.ceil(MAX_HIGHLIGHT_CHARS / 13) + 1);
      const html = renderMarkdownHtml(`\`\`\`ts\n${long}\`\`\`\n`);
      assert.doesNotMatch(html, /data-hl=/);
      assert.ok(canHighlight('TypeScript') && canHighlight('sh') && !canHighlight('brainfuck') && !canHighlight(''));
    });
  });
});
