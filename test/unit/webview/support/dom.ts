/**
 * A DOM for webview modules in plain Node (happy-dom): `useDom()` in a describe block gives each
 * test a fresh window and installs its globals (document, HTMLElement…) the way the webview's
 * browser has them, and removes them after.
 */
// happy-dom is an ES module: its type is imported as one, and the module itself with import().
import type * as HappyDom from 'happy-dom' with { 'resolution-mode': 'import' };
import type { Window } from 'happy-dom' with { 'resolution-mode': 'import' };

const GLOBALS = [
  'window',
  'document',
  'Node',
  'Element',
  'HTMLElement',
  'KeyboardEvent',
  'MouseEvent',
  'Event',
  'CSS',
  'MutationObserver',
  'requestAnimationFrame',
  'cancelAnimationFrame',
] as const;

export function useDom(): { window: () => Window } {
  let window: Window | undefined;
  const saved = new Map<string, PropertyDescriptor | undefined>();
  let happyDom: typeof HappyDom | undefined;
  before(async () => {
    happyDom = await import('happy-dom');
  });
  beforeEach(() => {
    if (!happyDom) throw new Error('useDom: happy-dom did not load');
    window = new happyDom.Window({ url: 'https://webview.test/' });
    for (const name of GLOBALS) {
      saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
      const value = name === 'window' ? window : (window as unknown as Record<string, unknown>)[name];
      Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
    }
  });
  afterEach(async () => {
    for (const name of GLOBALS) {
      const before = saved.get(name);
      if (before) Object.defineProperty(globalThis, name, before);
      else delete (globalThis as Record<string, unknown>)[name];
    }
    await window?.happyDOM.close();
    window = undefined;
  });
  return {
    window: () => {
      if (!window) throw new Error('useDom: no window outside a test');
      return window;
    },
  };
}
