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
