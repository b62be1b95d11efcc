/**
 * A tiny element builder. Text is always set with textContent, never parsed as HTML: the sidebar
 * shows model output and workspace text, which must not be able to inject markup or scripts.
 */
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, string | boolean | number | undefined>,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Record<string, string | boolean | number | undefined>, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Record<string, string | boolean | number | undefined> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function clear(element: Element): void {
  while (element.firstChild) element.removeChild(element.firstChild);
}

/**
 * Runs `redraw`, which rebuilds rows of `container`, and gives the focus back to the same control
 * of the same row if one of them had it: updates arrive while a person works in the sidebar (a
 * run's progress, a server starting), and a keyboard user's focus must not fall to the page. The
 * row is found again by `keyAttribute`; the control by its tag and class and its place among the
 * row's look-alikes. Focus that was elsewhere, in the sidebar or outside it, is never taken.
 */
export function keepingFocus(container: Element, keyAttribute: string, redraw: () => void): void {
  const active = document.activeElement;
  // Only while the sidebar has the focus: a webview keeps its activeElement when the person moves
  // to the editor, and focusing from here then would pull the focus out of the editor.
  const row = active && document.hasFocus() && container.contains(active) ? active.closest(`[${keyAttribute}]`) : null;
  if (!active || !row || !container.contains(row)) {
    redraw();
    return;
  }
  const key = row.getAttribute(keyAttribute);
  const signature = (element: Element) => `${element.tagName}.${element.className}`;
  const lookAlikes = (within: Element) => [...within.querySelectorAll('*')].filter((element) => signature(element) === signature(active));
  const nth = active === row ? -1 : lookAlikes(row).indexOf(active);
  redraw();
  if (active.isConnected && document.activeElement === active) return;
  const newRow = [...container.querySelectorAll(`[${keyAttribute}]`)].find((element) => element.getAttribute(keyAttribute) === key);
  const target = newRow && (nth === -1 ? newRow : lookAlikes(newRow)[nth]);
  if (!(target instanceof HTMLElement)) return;
  target.focus();
  // A new web-component button (vscode-button) is focusable only once its first render has set
  // its tabindex, a microtask later (before the next message can redraw again): focus it then,
  // unless the person has moved on meanwhile.
  const rendered = (target as { updateComplete?: Promise<unknown> }).updateComplete;
  if (document.activeElement !== target && rendered) {
    void rendered.then(() => {
      if (target.isConnected && document.hasFocus() && (document.activeElement === null || document.activeElement === document.body)) target.focus();
    });
  }
}

/**
 * Makes `parent`'s children exactly `wanted`, in order, leaving a child that stays where it is
 * untouched: a row under the pointer or the focus is not taken out and put back (which would lose
 * a click half done, or the focus) just because rows around it came or went.
 */
export function syncChildren(parent: Element, wanted: readonly Element[]): void {
  const keep = new Set(wanted);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  let cursor = parent.firstElementChild;
  for (const element of wanted) {
    if (element === cursor) cursor = cursor.nextElementSibling;
    else parent.insertBefore(element, cursor);
  }
}

/**
 * Row elements by id that are built again only when what they show changes: a row that looks the
 * same keeps its element (its focus, a click under way, a status a screen reader already read).
 * Each `draw` is the whole list drawn now; rows not in it are forgotten.
 */
export class KeptRows<T> {
  private rows = new Map<string, { shown: string; element: HTMLElement }>();

  constructor(
    private readonly id: (item: T) => string,
    private readonly build: (item: T) => HTMLElement,
  ) {}

  /** The elements for `items`, in order; `shown` is what a row displays (as a string to compare). */
  draw(items: readonly T[], shown: (item: T) => string = (item) => JSON.stringify(item)): HTMLElement[] {
    const rows = new Map<string, { shown: string; element: HTMLElement }>();
    for (const item of items) {
      const now = shown(item);
      const kept = this.rows.get(this.id(item));
      rows.set(this.id(item), kept?.shown === now ? kept : { shown: now, element: this.build(item) });
    }
    this.rows = rows;
    return [...rows.values()].map((row) => row.element);
  }
}

/** `run`, at most once per animation frame however often the returned function is called. */
export function oncePerFrame(run: () => void): () => void {
  let frame = 0;
  return () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      run();
    });
  };
}

/**
 * The rows a virtualised list draws: those in its viewport plus `overscan` on each side, for
 * fixed-height rows; `fallbackHeight` while the viewport is not laid out yet.
 */
export function visibleRows(
  viewport: HTMLElement,
  count: number,
  rowHeight: number,
  overscan: number,
  fallbackHeight: number,
): { first: number; last: number } {
  const height = viewport.clientHeight || fallbackHeight;
  const first = Math.max(0, Math.floor(viewport.scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((viewport.scrollTop + height) / rowHeight) + overscan);
  return { first, last };
}

export function formatTime(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
