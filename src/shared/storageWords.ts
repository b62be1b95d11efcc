import type { Translator } from './translator';

/**
 * What the Storage view and `Tasklane: Show Storage` say of each thing Tasklane keeps. The core
 * (src/core/engine/history.ts) reports what is kept as data: which thing, its numbers, the days its
 * rule counts; the words are made here, through the host's Translator, so they read in the
 * person's language (the core has no vscode.l10n).
 */

/** The kinds of rows the archive moves (src/core/store/archiveRules.ts re-exports this). */
export type ArchiveKind = 'session' | 'task' | 'chore_run' | 'approval' | 'command_approval' | 'ledger';

/** One thing Tasklane keeps, where, how much, and what its rule counts. */
export interface StorageItem {
  /** Which thing: its words and its rule follow from it. */
  key: 'hot' | 'triggerHistory' | 'archive' | 'events' | 'scratch' | 'memory' | 'file' | 'deadLetters';
  /** For `archive`: which rows, how many are still hot and the damaged places skipped. */
  archive?: { kind: ArchiveKind; hotRows: number; damaged: number };
  /** For `file` and `memory`: the file's name (a name, shown as it is). */
  name?: string;
  /** The days the rule counts (`triggerHistory`, and the archive kinds with a setting). */
  days?: number;
  where: string;
  count: number;
  bytes: number;
}

/** The archive's rows in words, plural: "tasks: 3 hot, 12 archived". */
function archiveRows(kind: ArchiveKind, l10n: Translator): string {
  switch (kind) {
    case 'session':
      return l10n.t('sessions');
    case 'task':
      return l10n.t('tasks');
    case 'chore_run':
      return l10n.t('chore runs');
    case 'approval':
      return l10n.t('approvals');
    case 'command_approval':
      return l10n.t('command approvals');
    case 'ledger':
      return l10n.t('ledger entries');
  }
}

/** What is kept, in words. */
export function storageWhat(item: StorageItem, l10n: Translator): string {
  switch (item.key) {
    case 'hot':
      return l10n.t('Hot database (snapshot + journal)');
    case 'triggerHistory':
      return l10n.t('Settled triggers (history)');
    case 'archive': {
      const { kind, hotRows, damaged } = item.archive!;
      return damaged
        ? l10n.t('{0}: {1} hot, {2} archived, {3} damaged place(s) skipped', archiveRows(kind, l10n), hotRows, item.count, damaged)
        : l10n.t('{0}: {1} hot, {2} archived', archiveRows(kind, l10n), hotRows, item.count);
    }
    case 'events':
      return l10n.t('Session event streams');
    case 'scratch':
      return l10n.t('Scratch dirs');
    case 'memory':
    case 'file':
      return item.name ?? '';
    case 'deadLetters':
      return l10n.t('Dead letters');
  }
}

/** The rule that removes or moves it, in words. */
export function storageRule(item: StorageItem, l10n: Translator): string {
  const days = item.days ?? 0;
  switch (item.key) {
    case 'hot':
      return l10n.t('live work only; ended work moves to the archive');
    case 'triggerHistory':
      return l10n.t('deleted after {0} days', days);
    case 'archive':
      switch (item.archive!.kind) {
        case 'task':
        case 'chore_run':
          return l10n.t('archived 1 day after it ends');
        case 'approval':
        case 'command_approval':
          return l10n.t('archived {0} days after the decision', days);
        case 'ledger':
          return l10n.t('archived {0} days after the outcome', days);
        case 'session':
          return l10n.t('archived after {0} idle days', days);
      }
      break;
    case 'events':
      return l10n.t('kept (read a page at a time)');
    case 'scratch':
      return l10n.t('removed when their task is no longer live');
    case 'memory':
      return l10n.t('edited by whole entries within its size limit');
    case 'file':
      return l10n.t('kept');
    case 'deadLetters':
      return l10n.t('kept until retried or dismissed');
  }
  return '';
}

/**
 * A size as people read it, its unit through the Translator (a translation may write "Ko" for
 * "KB"). The number keeps the point as its decimal mark: the Translator has no number format.
 */
export function storageSize(bytes: number, l10n: Translator): string {
  if (bytes < 1024) return l10n.t('{0} B', bytes);
  if (bytes < 1024 * 1024) return l10n.t('{0} KB', (bytes / 1024).toFixed(1));
  return l10n.t('{0} MB', (bytes / 1024 / 1024).toFixed(1));
}

/** `Tasklane: Show Storage`'s document: a table of what is kept, its headings and rows in the person's language. */
export function storageDocument(items: readonly StorageItem[], l10n: Translator): string {
  const lines = [
    `# ${l10n.t('Tasklane storage')}`,
    '',
    `| ${l10n.t('What')} | ${l10n.t('Count')} | ${l10n.t('Size')} | ${l10n.t('Rule')} |`,
    '| --- | --- | --- | --- |',
  ];
  for (const item of items) lines.push(`| ${storageWhat(item, l10n)} | ${item.count} | ${storageSize(item.bytes, l10n)} | ${storageRule(item, l10n)} |`);
  lines.push('', l10n.t('Schedules and settings: `tasklane.storage.*` (see the README, "Storage").'));
  return lines.join('\n');
}
