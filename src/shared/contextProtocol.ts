/**
 * The sidebar protocol's context part: what the person attaches to a message (a file, the
 * selection, Problems, the working-tree diff). (src/shared/protocol.ts joins it with the rest.)
 */
import * as z from 'zod/v4';

/** One attachment, shown as a removable chip and sent with the message as its context. */
export interface AttachmentView {
  kind: 'file' | 'selection' | 'problems' | 'diff' | 'mcp';
  /** What the chip says: a path, `path:12-20`, "Problems", "Working-tree diff", "server: resource uri". */
  label: string;
  /** The content the model receives. */
  text: string;
}

/** Largest attachment text; the host clips to it (the message schema refuses more). */
export const ATTACHMENT_MAX_CHARS = 200_000;

export const attachmentSchema = z.object({
  kind: z.enum(['file', 'selection', 'problems', 'diff', 'mcp']),
  label: z.string().min(1).max(1000),
  text: z.string().max(ATTACHMENT_MAX_CHARS),
});

/** Add to Tasklane from the editor: a chip for the composer (the `@` picker's pick is the reply to `context.pick`). */
export type ContextHostMessage = { type: 'contextAttached'; attachment: AttachmentView };

/**
 * The message text the model receives: what the person typed, then each attachment as a tagged
 * block, so the model can tell context from the request.
 */
export function withAttachments(text: string, attachments: readonly AttachmentView[]): string {
  if (attachments.length === 0) return text;
  const blocks = attachments.map((a) => `<attachment kind="${a.kind}" name="${a.label.replace(/"/g, "'")}">\n${a.text}\n</attachment>`);
  return `${text}\n\n${blocks.join('\n\n')}`;
}
