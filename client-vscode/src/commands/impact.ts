/**
 * Show Impact of Changes: the folder's uncommitted changes (HEAD against the files on
 * disk, as `codekeep impact` with no range) as a tree in the "Impact" view of the
 * CodeKeep side bar — changed symbols → callers → tests; every row opens its place.
 * Unsaved buffers count as they are on disk, so the command saves them first.
 */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { pickFolder } from '../folders';
import { type ImpactNode, impactChildren, impactMessage, impactRoots, impactRow } from '../impactTree';
import { type ImpactResult, Methods } from '../protocol';

export class ImpactTreeProvider implements vscode.TreeDataProvider<ImpactNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: ImpactNode[] = [];
  private folder: vscode.Uri | undefined;
  view: vscode.TreeView<ImpactNode> | undefined;

  show(result: ImpactResult, folder: vscode.Uri): void {
    this.roots = impactRoots(result);
    this.folder = folder;
    if (this.view) {
      this.view.message = impactMessage(result);
    }
    this.changed.fire();
  }

  getChildren(element?: ImpactNode): ImpactNode[] {
    return element ? impactChildren(element) : this.roots;
  }

  getTreeItem(element: ImpactNode): vscode.TreeItem {
    const row = impactRow(element);
    const state =
      !row.expandable ? vscode.TreeItemCollapsibleState.None
      : element.kind === 'symbol' ? vscode.TreeItemCollapsibleState.Expanded
      : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(row.label, state);
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon);
    if (row.target && this.folder) {
      const position = new vscode.Position(row.target.line, 0);
      item.command = {
        command: 'vscode.open',
        title: 'Open',
        arguments: [vscode.Uri.joinPath(this.folder, row.target.path), { selection: new vscode.Range(position, position) } satisfies vscode.TextDocumentShowOptions],
      };
    }
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export async function showImpact(connection: ServerConnection, tree: ImpactTreeProvider): Promise<void> {
  const folder = await pickFolder('Show the impact of the changes in which folder?');
  if (!folder) {
    return;
  }
  await vscode.workspace.saveAll(false);
  const result = await vscode.window.withProgress(
    { location: { viewId: 'codekeep.impact' }, title: 'CodeKeep: impact of the changes' },
    () => connection.request<ImpactResult>(Methods.impact, { uri: folder.uri.toString() }),
  );
  tree.show(result, folder.uri);
  await vscode.commands.executeCommand('codekeep.impact.focus');
}
