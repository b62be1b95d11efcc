/**
 * The sidebar's collapsible sections (src/host/sidebarProvider.ts lays them out): each summary
 * says what is inside, an empty inbox hides, and new work to review opens its section, so a card
 * never waits unseen in a collapsed section. Panels stay unaware of this: it watches their DOM.
 */
export function watchSection(
  details: HTMLDetailsElement,
  content: HTMLElement,
  note: HTMLElement,
  count: () => { shown: number; needsYou: number },
  label: (n: number) => string,
): void {
  let lastNeedsYou = 0;
  const update = () => {
    const { shown, needsYou } = count();
    details.hidden = shown === 0;
    note.textContent = needsYou > 0 ? `(${label(needsYou)})` : '';
    if (needsYou > lastNeedsYou) details.open = true;
    lastNeedsYou = needsYou;
  };
  new MutationObserver(update).observe(content, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-status'] });
  update();
}
