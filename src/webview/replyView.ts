import type { SidebarMethod, SidebarParams } from '../shared/sidebarApi';
import type { Request } from './requests';
import { CodeHighlighter } from './codeHighlighter';
import { renderMarkdownHtml } from './markdown';
import { SectionRenderer } from './sectionRenderer';
import { word } from './words';

/**
 * Rendered replies in the DOM. The renderer's HTML (markdown.ts) is parsed into a `<template>`,
 * whose content is inert (no image is fetched, no script runs while it sits there), then an
 * allow-list runs over it before it joins the page: defence in depth behind `html: false`, the
 * link rules and the webview's CSP. Each message is rendered once, on its own; the list is never
 * re-rendered. A long reply renders its end (what a person following the conversation sees) at
 * once and the rest section by section just after (sectionRenderer.ts); code blocks are coloured
 * later, as they come into view (codeHighlighter.ts).
 */

const ALLOWED_TAGS = new Set([
  'A',
  'P',
  'BR',
  'HR',
  'STRONG',
  'EM',
  'S',
  'DEL',
  'CODE',
  'PRE',
  'SPAN',
  'DIV',
  'BLOCKQUOTE',
  'UL',
  'OL',
  'LI',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
  'INPUT',
  'BUTTON',
]);
const ALLOWED_ATTRIBUTES = new Set([
  'class',
  'title',
  'role',
  'aria-label',
  'type',
  'disabled',
  'checked',
  'start',
  'href',
  'data-link-kind',
  'data-path',
  'data-line',
  'data-column',
  'data-lang',
  'data-code-action',
  'data-hl',
]);

/** Removes anything the renderer should never have produced; returns how many nodes it changed. */
export function sanitize(root: DocumentFragment): number {
  let changed = 0;
  for (const element of [...root.querySelectorAll('*')]) {
    if (!ALLOWED_TAGS.has(element.tagName) || (element.tagName === 'INPUT' && element.getAttribute('type') !== 'checkbox')) {
      element.replaceWith(document.createTextNode(element.textContent ?? ''));
      changed++;
      continue;
    }
    for (const attribute of [...element.attributes]) {
      const ok =
        ALLOWED_ATTRIBUTES.has(attribute.name) &&
        (attribute.name !== 'href' || attribute.value === '#' || /^(https?|vscode|vscode-insiders):/i.test(attribute.value));
      if (!ok) {
        element.removeAttribute(attribute.name);
        changed++;
      }
    }
    if (element.tagName === 'INPUT') element.setAttribute('disabled', '');
  }
  return changed;
}

/**
 * Off-screen blocks of a reply are not laid out (content-visibility in the sidebar's CSS); until
 * they are, the browser sizes them by estimate. A code block's estimate comes from its line count,
 * so the reply's height (the scroll bar, what counts as "near the view" for highlighting) is
 * about right before its blocks are laid out. Set through the CSSOM: the CSP forbids style
 * attributes, not this.
 */
function estimateBlockSizes(root: ParentNode): void {
  for (const block of root.querySelectorAll<HTMLElement>('.code-block')) {
    if (block.parentElement && !block.parentElement.classList.contains('md')) continue; // nested: laid out with its parent
    const lines = (block.querySelector('pre code')?.textContent ?? '').split('\n').length;
    // A code line is 0.92em × line-height 1.4 (sidebar.css); then the toolbar, padding and borders.
    block.style.setProperty('contain-intrinsic-size', `auto calc(${lines} * 1.288em + 1.9em + 14px)`);
  }
}

/** Colours code blocks near the view; what it inserts passes the same allow-list. */
const highlighter = new CodeHighlighter((root) => void sanitize(root));

/** Markdown → sanitized nodes with their size estimates, registered for colouring. */
function renderFragment(text: string, env?: Parameters<typeof renderMarkdownHtml>[1]): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = renderMarkdownHtml(text, env);
  sanitize(template.content);
  estimateBlockSizes(template.content);
  highlighter.watch(template.content);
  return template.content;
}

/** One complete block of a streaming reply, rendered as a reply's Markdown is (streamMarkdown.ts). */
export function renderStreamedBlock(text: string): DocumentFragment {
  return renderFragment(text);
}

/** Renders the sections of long replies (the end first, the rest in small tasks or when scrolled near). */
const sections = new SectionRenderer(renderFragment);

/** One assistant reply as a DOM subtree. */
export function renderReply(text: string): HTMLElement {
  const root = document.createElement('div');
  // msg-text like every message body (tests and styles find a message's text by it); md for the rendering.
  root.className = 'msg-text md';
  if (!sections.render(root, text)) root.appendChild(renderFragment(text));
  return root;
}

/**
 * Wires the links and code-block buttons of every reply under `container` with one delegated
 * listener (a 2,000-line reply with 20 blocks adds no listeners), and colours its code blocks as
 * they scroll into view of `container`. `sessionId` gives the session shown, for proposals.
 */
export function handleReplyActions(container: HTMLElement, request: Request, sessionId: () => string | undefined): void {
  // Each gesture's failure is said by the host, as a notification.
  const ask = <K extends SidebarMethod>(method: K, params: SidebarParams[K]): void => void request(method, params).catch(() => undefined);
  highlighter.attach(container);
  sections.attach(container);
  container.addEventListener('click', (event) => {
    const target = event.target as HTMLElement;
    const link = target.closest<HTMLAnchorElement>('a.md-link');
    if (link) {
      // Never let the webview navigate: the host opens the link (or the file), after its own checks.
      event.preventDefault();
      if (link.dataset.linkKind === 'external') ask('reply.openLink', { url: link.getAttribute('href') ?? '' });
      else if (link.dataset.linkKind === 'file' && link.dataset.path) {
        ask('reply.openFile', {
          path: link.dataset.path,
          ...(link.dataset.line ? { line: Number(link.dataset.line) } : {}),
          ...(link.dataset.column ? { column: Number(link.dataset.column) } : {}),
        });
      }
      return;
    }
    const button = target.closest<HTMLElement>('[data-code-action]');
    if (!button) return;
    const block = button.closest<HTMLElement>('.code-block');
    const code = block?.querySelector('pre code')?.textContent ?? '';
    switch (button.dataset.codeAction) {
      case 'copy':
        ask('reply.copy', { text: code });
        flash(button, word('codeCopied'));
        break;
      case 'insert':
        ask('reply.insert', { text: code });
        break;
      case 'propose': {
        const session = sessionId();
        ask('reply.propose', { text: code, ...(block?.dataset.path ? { path: block.dataset.path } : {}), ...(session ? { sessionId: session } : {}) });
        break;
      }
    }
  });
}

/** Briefly relabels a button ("Copied"), announced to screen readers by its live label. */
function flash(button: HTMLElement, label: string): void {
  const original = button.textContent;
  button.textContent = label;
  setTimeout(() => (button.textContent = original), 1200);
}
