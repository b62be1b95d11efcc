/** How far outside the visible part of the transcript a block's rows are drawn ahead of scrolling. */
const AHEAD = '100% 0px';

/** Calls back once when an element comes near the visible part of a scroll container. */
export interface NearView {
  /** Calls `near` once, when `element` is within a view's height of being visible. */
  watch(element: HTMLElement, near: () => void): void;
  /** Forgets every element watched (the transcript was drawn afresh). */
  clear(): void;
}

/** A NearView over `root`; where the browser has no IntersectionObserver, every element is near at once. */
export function nearView(root: HTMLElement): NearView {
  if (typeof IntersectionObserver === 'undefined') return { watch: (_element, near) => near(), clear: () => undefined };
  const waiting = new Map<Element, () => void>();
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const near = entry.isIntersecting ? waiting.get(entry.target) : undefined;
        if (!near) continue;
        waiting.delete(entry.target);
        observer.unobserve(entry.target);
        near();
      }
    },
    { root, rootMargin: AHEAD },
  );
  return {
    watch(element, near) {
      waiting.set(element, near);
      observer.observe(element);
    },
    clear() {
      waiting.clear();
      observer.disconnect();
    },
  };
}
