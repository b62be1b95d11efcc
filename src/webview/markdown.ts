/**
 * Model replies as Markdown (CommonMark + GFM tables, strikethrough, task lists), rendered to an
 * HTML string that can fetch and run nothing:
 *
 * - raw HTML is off (`html: false`): `<script>`, `<img>`, `<iframe>` in a reply are shown as text;
 * - images are never `<img>`: an http(s) image becomes a text link (opened outside on click, not
 *   fetched), anything else a placeholder;
 * - a link keeps its href only for http(s) and vscode: URIs; file: URIs and workspace-relative
 *   paths become file links (the host opens them only if they are inside the workspace);
 *   every other scheme (javascript:, data:, command:, mailto:, …) renders as inert text;
 * - bare file paths and `path:line` in text and inline code become file links;
 * - fenced code is escaped text here, marked with `data-hl="<language>"` when it is a language we
 *   ship (highlight.js core plus a few common ones: the bundle stays small, and an unknown language
 *   is shown plain rather than guessed, which would be slow on a long reply); the view colours each
 *   block when it comes near the viewport (`highlightCode`, used by replyView.ts), because
 *   highlighting is most of the cost of a long reply (~30 ms per 90-line TypeScript block) and a
 *   2,000-line reply must show at once. Each block carries a toolbar of actions the view wires up
 *   by delegation.
 *
 * Pure (no DOM): the unit tier tests these rules in Node; `replyView.ts` parses the string into
 * an inert template, runs an allow-list over it and inserts it.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import MarkdownIt from 'markdown-it';
import { vscodeLink } from '../shared/linkPolicy';
import { word } from './words';

type Token = MarkdownIt.Token;
type StateCore = MarkdownIt.StateCore;
type Options = Required<MarkdownIt.MarkdownItOptions>;
type Markdown = MarkdownIt.MarkdownIt;

/** An attribute as text (markdown-it types them string | number). */
const attr = (token: Token, name: string): string | undefined => {
  const value = token.attrGet(name);
  return value === null ? undefined : String(value);
};
type Renderer = MarkdownIt.Renderer;

const LANGUAGES = { bash, css, diff, go, java, javascript, json, markdown, python, rust, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });

/**
 * Why a link in a reply is not a link, as a key of the sidebar's catalog: each is one whole
 * sentence there, so the person reads it in their language; `value` is the scheme or the
 * extension it names, if any.
 */
export type InertWhy =
  | 'linkInertEmpty'
  | 'linkInertAnchor'
  | 'linkInertProtocolRelative'
  | 'linkInertQueryOnly'
  | 'linkInertEmptyPath'
  | 'linkInertScheme'
  | 'linkInertNoExtension'
  | 'linkInertOtherExtension';

/** What a link in a reply may do. */
export type LinkTarget =
  { kind: 'external'; url: string } | { kind: 'file'; path: string; line?: number; column?: number } | { kind: 'inert'; why: InertWhy; value?: string };

const EXTERNAL_SCHEMES = new Set(['http', 'https']);

/**
 * Classifies a link destination. The scheme is read after removing what browsers ignore
 * (whitespace and control characters anywhere, case), so `JaVa\tScRiPt:` is still javascript.
 */
export function classifyLink(raw: string): LinkTarget {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must be stripped
  const href = raw.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (href === '') return { kind: 'inert', why: 'linkInertEmpty' };
  // `README.md:12` is a path and a line, not a scheme named "readme.md".
  if (/^[^:/?#]+:\d+(?::\d+)?$/.test(href)) return fileTarget(safeDecode(href));
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href)?.[1]?.toLowerCase();
  if (scheme === undefined || (scheme.length === 1 && /^[a-z]:[\\/]/i.test(href))) {
    if (href.startsWith('#')) return { kind: 'inert', why: 'linkInertAnchor' };
    if (href.startsWith('//')) return { kind: 'inert', why: 'linkInertProtocolRelative' };
    if (href.startsWith('?')) return { kind: 'inert', why: 'linkInertQueryOnly' };
    return fileTarget(safeDecode(href.replace(/[?].*$/, '')));
  }
  if (EXTERNAL_SCHEMES.has(scheme)) return { kind: 'external', url: href };
  const vscodeVerdict = vscodeLink(href);
  if (vscodeVerdict?.kind === 'own') return { kind: 'external', url: href };
  if (vscodeVerdict?.kind === 'file') return fileTarget(safeDecode(vscodeVerdict.spec));
  if (vscodeVerdict?.kind === 'refused')
    return vscodeVerdict.why === 'no_extension'
      ? { kind: 'inert', why: 'linkInertNoExtension' }
      : { kind: 'inert', why: 'linkInertOtherExtension', value: vscodeVerdict.extension };
  if (scheme === 'file') {
    const withoutScheme = href.replace(/^file:(\/\/[^/]*)?/i, '');
    return fileTarget(safeDecode(withoutScheme));
  }
  return { kind: 'inert', why: 'linkInertScheme', value: scheme };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `path`, `path:12`, `path:12:3`, `path#L12` or `path#L12C3` → a file target. */
function fileTarget(spec: string): LinkTarget {
  const hash = /^(.*?)#L(\d+)(?:C(\d+))?$/.exec(spec);
  const colon = /^(.*?):(\d+)(?::(\d+))?$/.exec(spec);
  const [, path, line, column] = hash ?? colon ?? [spec, spec.replace(/#.*$/, '')];
  if (!path) return { kind: 'inert', why: 'linkInertEmptyPath' };
  return { kind: 'file', path, ...(line ? { line: Number(line) } : {}), ...(column ? { column: Number(column) } : {}) };
}

const FILE_EXTENSIONS =
  'tsx?|jsx?|mjs|cjs|mts|cts|json|jsonc|md|mdx|py|go|rs|java|kt|cs|c|h|cc|cpp|hpp|rb|php|swift|css|scss|less|html?|vue|svelte|ya?ml|toml|ini|sh|bash|txt|sql|xml|gradle|lock|env';
/**
 * A file path in prose: an optional ./ or ../, folders, a name with a known extension, then an
 * optional :line[:col] or #Lline. Known extensions only, so "e.g." or "v1.2" stay text.
 */
const PATH_IN_TEXT = new RegExp(
  `(?<![\\w/.:@-])((?:\\.{1,2}/)?(?:[\\w@.-]+/)*[\\w@-][\\w@.-]*\\.(?:${FILE_EXTENSIONS}))((?::\\d+(?::\\d+)?)|(?:#L\\d+(?:C\\d+)?))?(?![\\w/-])`,
  'g',
);
const WHOLE_PATH = new RegExp(`^${PATH_IN_TEXT.source}$`);

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Wraps bare paths in text and whole-path inline code in link tokens (outside existing links). */
function linkFilePaths(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    for (const token of block.children) {
      if (token.type === 'link_open') inLink++;
      if (token.type === 'link_close') inLink--;
      if (inLink > 0) {
        out.push(token);
      } else if (token.type === 'code_inline' && WHOLE_PATH.test(token.content)) {
        out.push(linkToken(state, token.content), token, new state.Token('link_close', 'a', -1));
      } else if (token.type === 'text' && PATH_IN_TEXT.test(token.content)) {
        PATH_IN_TEXT.lastIndex = 0;
        let last = 0;
        for (const match of token.content.matchAll(PATH_IN_TEXT)) {
          const at = match.index ?? 0;
          if (at > last) out.push(textToken(state, token.content.slice(last, at)));
          out.push(linkToken(state, match[0]), textToken(state, match[0]), new state.Token('link_close', 'a', -1));
          last = at + match[0].length;
        }
        if (last < token.content.length) out.push(textToken(state, token.content.slice(last)));
      } else {
        out.push(token);
      }
      PATH_IN_TEXT.lastIndex = 0;
    }
    block.children = out;
  }
}

function linkToken(state: StateCore, href: string): Token {
  const token = new state.Token('link_open', 'a', 1);
  token.attrs = [['href', href]];
  token.markup = 'autopath';
  return token;
}

function textToken(state: StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

/** GFM task list items: a leading `[ ]` / `[x]` becomes a (read-only) checkbox. */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i];
    if (inline.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
    const first = inline.children?.[0];
    const mark = first?.type === 'text' ? /^\[([ xX])\][ \t]/.exec(first.content) : null;
    if (!first || !mark) continue;
    first.content = first.content.slice(mark[0].length);
    const box = new state.Token('task_checkbox', 'input', 0);
    box.meta = { checked: mark[1] !== ' ' };
    inline.children?.unshift(box);
    tokens[i - 2].attrJoin('class', 'task-list-item');
  }
}

function renderLinkOpen(tokens: Token[], idx: number): string {
  const token = tokens[idx];
  const target = classifyLink(attr(token, 'href') ?? '');
  const title = attr(token, 'title');
  // The matching close tag must agree with what was opened: remember it on the token pair.
  const close = tokens.slice(idx + 1).find((t) => t.type === 'link_close' && t.level === token.level);
  if (target.kind === 'inert') {
    if (close) close.meta = { inert: true };
    return `<span class="md-link-inert" title="${escapeHtml(target.value === undefined ? word(target.why) : word(target.why, target.value))}">`;
  }
  if (target.kind === 'external') {
    return `<a class="md-link" href="${escapeHtml(target.url)}" data-link-kind="external" title="${escapeHtml(title ?? target.url)}">`;
  }
  const where = target.line ? `${target.path}:${target.line}${target.column ? `:${target.column}` : ''}` : target.path;
  return `<a class="md-link file-link" href="#" data-link-kind="file" data-path="${escapeHtml(target.path)}"${target.line ? ` data-line="${target.line}"` : ''}${target.column ? ` data-column="${target.column}"` : ''} title="${escapeHtml(word('linkOpenFile', where))}">`;
}

function renderImage(tokens: Token[], idx: number, options: Options, _env: unknown, self: Renderer): string {
  const token = tokens[idx];
  const alt = self.renderInlineAsText(token.children ?? [], options, {}) || word('imageAlt');
  const target = classifyLink(attr(token, 'src') ?? '');
  // Never an <img>: a reply must not make the webview fetch anything.
  if (target.kind === 'external' && /^https?:/i.test(target.url)) {
    return `<a class="md-link md-image" href="${escapeHtml(target.url)}" data-link-kind="external" title="${escapeHtml(word('imageNotLoaded', target.url))}">${escapeHtml(word('imageMark', alt))}</a>`;
  }
  return `<span class="md-image" title="${escapeHtml(word('imageNotShown'))}">${escapeHtml(word('imageMark', alt))}</span>`;
}

/**
 * Blocks longer than this stay plain: highlight.js has no way to yield, and one call on a huge
 * block (a pasted log, a generated file) would freeze the view for a long time.
 */
export const MAX_HIGHLIGHT_CHARS = 40_000;

/** Whether `language` is one we highlight (a shipped grammar or alias). */
export function canHighlight(language: string): boolean {
  return language !== '' && hljs.getLanguage(language.toLowerCase()) !== undefined;
}

/** Highlighted code, or escaped text for a language we do not ship. */
export function highlight(code: string, language: string): string {
  const name = language.toLowerCase();
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

/** A fence's info string: language, then optionally the file it is for (```ts src/a.ts). */
function parseInfo(info: string): { language: string; path?: string } {
  const [language = '', ...rest] = info.trim().split(/\s+/);
  const named = rest.find((word) => /[/.]/.test(word)) ?? (/[/]/.test(language) ? language : undefined);
  const path = named?.replace(/^(?:title|file|path)=/, '').replace(/^["']|["']$/g, '');
  return { language: named === language ? '' : language, ...(path ? { path } : {}) };
}

/** The buttons under each code block; replyView.ts handles their clicks by delegation. */
export const CODE_ACTIONS = [
  { action: 'copy', label: 'codeCopy' },
  { action: 'insert', label: 'codeInsert' },
  { action: 'propose', label: 'codePropose' },
] as const;

function renderFence(tokens: Token[], idx: number): string {
  const token = tokens[idx];
  const { language, path } = parseInfo(token.info);
  const label = language || word('codePlainText');
  // Coloured later, near the viewport (see the file comment); too-long blocks stay plain.
  const lazy = canHighlight(language) && token.content.length <= MAX_HIGHLIGHT_CHARS;
  const buttons = CODE_ACTIONS.map(
    (a) => `<button type="button" class="code-action" data-code-action="${a.action}">${escapeHtml(word(a.label))}</button>`,
  ).join('');
  return (
    `<div class="code-block" data-lang="${escapeHtml(label)}"${path ? ` data-path="${escapeHtml(path)}"` : ''}>` +
    `<div class="code-toolbar" role="toolbar" aria-label="${escapeHtml(path ? word('codeToolbarFor', label, path) : word('codeToolbar', label))}"><span class="code-lang">${escapeHtml(path ?? label)}</span>${buttons}</div>` +
    `<pre><code class="hljs${language ? ` language-${escapeHtml(language)}` : ''}"${lazy ? ` data-hl="${escapeHtml(language.toLowerCase())}"` : ''}>${escapeHtml(token.content)}</code></pre></div>\n`
  );
}

function createRenderer(): Markdown {
  const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false, breaks: false });
  // Bare words like "main.ts" look like domains (.ts is a country code): only scheme:// and www. links.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  // Every destination reaches classifyLink (which decides); markdown-it's own check would turn a
  // file: link into plain text, and we want it as a workspace file link.
  md.validateLink = () => true;
  md.core.ruler.push('tasklane_file_paths', linkFilePaths);
  md.core.ruler.push('tasklane_task_lists', taskLists);
  md.renderer.rules.link_open = (tokens, idx) => renderLinkOpen(tokens, idx);
  md.renderer.rules.link_close = (tokens, idx) => ((tokens[idx].meta as { inert?: boolean } | null)?.inert ? '</span>' : '</a>');
  md.renderer.rules.image = renderImage;
  md.renderer.rules.fence = (tokens, idx) => renderFence(tokens, idx);
  md.renderer.rules.code_block = (tokens, idx) => renderFence(tokens, idx);
  md.renderer.rules.task_checkbox = (tokens, idx) =>
    `<input type="checkbox" class="task-checkbox" disabled${(tokens[idx].meta as { checked: boolean }).checked ? ' checked' : ''}> `;
  // Alignment as classes: the CSP forbids inline styles.
  for (const rule of ['th_open', 'td_open'] as const) {
    md.renderer.rules[rule] = (tokens, idx) => {
      const token = tokens[idx];
      const align = /text-align:(left|right|center)/.exec(attr(token, 'style') ?? '')?.[1];
      return `<${token.tag}${align ? ` class="align-${align}"` : ''}>`;
    };
  }
  return md;
}

let renderer: Markdown | undefined;

/**
 * What markdown-it keeps between the blocks of one reply: the link reference definitions. A long
 * reply rendered section by section (replySections.ts) shares one, so a reference used before it
 * is defined resolves as it would in the whole reply.
 */
export interface ReplyEnv {
  [key: string | symbol]: unknown;
  references?: Record<string, { href: string; title: string }>;
}

/** One reply (or one section of it, with the reply's `env`) as safe HTML (see the file comment). */
export function renderMarkdownHtml(text: string, env: ReplyEnv = {}): string {
  renderer ??= createRenderer();
  return renderer.render(text, env);
}

/**
 * Fills `env` with the link reference definitions of `sections` (in order: the first definition of
 * a label wins, as in one document). Only block-parses sections that may hold one (a line starting
 * with `[`), so a reply without any costs a regex test.
 */
export function collectReferences(sections: readonly string[], env: ReplyEnv): void {
  renderer ??= createRenderer();
  for (const section of sections) {
    if (/^ {0,3}\[/m.test(section)) renderer.block.parse(section, renderer, env, []);
  }
}
