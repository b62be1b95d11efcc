import type { AttachmentView } from '../shared/contextProtocol';
import { clear, h } from './dom';
import { word } from './words';

/**
 * The chips of what is attached to the next message: each removable (its × button, or Delete /
 * Backspace on the focused chip), cleared once the message is durably sent.
 */
export class AttachmentChips {
  private items: AttachmentView[] = [];

  constructor(private readonly root: HTMLElement) {
    this.render();
  }

  get list(): AttachmentView[] {
    return [...this.items];
  }

  add(attachment: AttachmentView): void {
    // The same file or selection twice is one chip (the newer text wins).
    this.items = [...this.items.filter((a) => !(a.kind === attachment.kind && a.label === attachment.label)), attachment];
    this.render();
  }

  clear(): void {
    this.items = [];
    this.render();
  }

  private remove(index: number): void {
    this.items.splice(index, 1);
    this.render();
  }

  private render(): void {
    clear(this.root);
    this.root.hidden = this.items.length === 0;
    this.items.forEach((attachment, index) => {
      const remove = h(
        'button',
        { type: 'button', class: 'chip-remove', 'aria-label': word('attachmentRemoveNamed', attachment.label), title: word('attachmentRemove') },
        '×',
      );
      remove.addEventListener('click', () => this.remove(index));
      const chip = h(
        'span',
        {
          class: `chip chip-${attachment.kind}`,
          role: 'listitem',
          tabindex: 0,
          'data-kind': attachment.kind,
          title: word('attachmentCharacters', attachment.text.length),
        },
        h('span', { class: 'chip-label' }, attachment.label),
        remove,
      );
      chip.addEventListener('keydown', (event: KeyboardEvent) => {
        if (event.key === 'Delete' || event.key === 'Backspace') this.remove(index);
      });
      this.root.appendChild(chip);
    });
  }
}
