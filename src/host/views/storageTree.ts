import * as vscode from 'vscode';
import type { StorageItem } from '../../core/engine/history';
import { SPACE } from './choresTree';
import { forLabel, forTooltip } from '../../core/security/surfaceText';
import { storageRule, storageSize, storageWhat } from '../../shared/storageWords';

/** What the Storage view reads: the agent's history and dead letters once the store is open. */
export interface StorageSource {
  storage(): Promise<StorageItem[]>;
  deadLetters(): number;
}

/** A row of the Storage view: what is kept (with its rule as its one child), or the dead letters. */
export type StorageNode = { kind: 'item'; item: StorageItem } | { kind: 'rule'; item: StorageItem } | { kind: 'dead'; count: number };

/** A row's id, the same in every language. */
const storageId = (item: StorageItem) => `storage/${item.key}${item.archive ? `/${item.archive.kind}` : ''}${item.name ? `/${item.name}` : ''}`;

/**
 * The Storage view (`tasklane.storage`): what Tasklane keeps for this workspace, how much and by
 * which rule, read when the view is shown or refreshed; Archive and Clean Up Now in its title, and
 * the dead letters with Retry and Dismiss. A view, not a document: nothing to save.
 */
export class StorageTree implements vscode.TreeDataProvider<StorageNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<StorageNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private source: StorageSource | undefined;

  attach(source: StorageSource): void {
    this.source = source;
    this.refresh();
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: StorageNode): Promise<StorageNode[]> {
    if (!this.source) return [];
    if (!node) {
      const items = await this.source.storage();
      const dead = this.source.deadLetters();
      return [...items.map((item): StorageNode => ({ kind: 'item', item })), ...(dead ? [{ kind: 'dead' as const, count: dead }] : [])];
    }
    if (node.kind === 'item') return [{ kind: 'rule', item: node.item }];
    return [];
  }

  getTreeItem(node: StorageNode): vscode.TreeItem {
    if (node.kind === 'item') {
      const { item } = node;
      // What is kept and its rule, in words made from the core's data (src/shared/storageWords.ts);
      // neutralised like every row (a file's name is in them) so the lint rule needs no exception.
      const words = storageWhat(item, vscode.l10n);
      const rule = storageRule(item, vscode.l10n);
      const what = forLabel(words);
      const item_ = new vscode.TreeItem(`${what}${SPACE}`, vscode.TreeItemCollapsibleState.Collapsed);
      item_.id = storageId(item);
      const size = forLabel(storageSize(item.bytes, vscode.l10n));
      item_.description = `${item.count} · ${size}`;
      item_.tooltip = `${what}: ${item.count}, ${size}\n${forTooltip(rule)}`;
      item_.accessibilityInformation = { label: `${words} ${item_.description}. ${rule}` };
      item_.iconPath = new vscode.ThemeIcon('database');
      return item_;
    }
    if (node.kind === 'rule') {
      const words = storageRule(node.item, vscode.l10n);
      const rule = new vscode.TreeItem(forLabel(words), vscode.TreeItemCollapsibleState.None);
      rule.id = `${storageId(node.item)}/rule`;
      rule.tooltip = forTooltip(words);
      rule.iconPath = new vscode.ThemeIcon('law');
      return rule;
    }
    const count = node.count === 1 ? vscode.l10n.t('1 dead letter') : vscode.l10n.t('{0} dead letters', node.count);
    const dead = new vscode.TreeItem(`${count}${SPACE}`, vscode.TreeItemCollapsibleState.None);
    dead.id = 'storage/dead-letters';
    dead.description = vscode.l10n.t('work that failed for good');
    dead.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    dead.contextValue = 'deadLetters';
    return dead;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
