/**
 * Find Related: what the symbol at the cursor calls, what calls it and what else is
 * related, in the "Related" tree view of the CodeKeep side bar. Every row opens its symbol.
 */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { symbolKindIcon } from '../items';
import { Methods, type RelatedResult, type SymbolInfo } from '../protocol';
import { displayPath, symbolUri, toRange } from '../ui';

type RelatedNode =
  | { kind: 'group'; label: string; icon: string; symbols: SymbolInfo[] }
  | { kind: 'symbol'; symbol: SymbolInfo; role: string };

export class RelatedTreeProvider implements vscode.TreeDataProvider<RelatedNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: RelatedNode[] = [];

  constructor(private readonly connection: ServerConnection) {}

  show(result: RelatedResult): void {
    const groups: RelatedNode[] = [
      { kind: 'group', label: 'Calls', icon: 'call-outgoing', symbols: result.calls },
      { kind: 'group', label: 'Called by', icon: 'call-incoming', symbols: result.calledBy },
      { kind: 'group', label: 'Related', icon: 'references', symbols: result.related },
    ];
    this.roots = result.symbol ? [{ kind: 'symbol', symbol: result.symbol, role: 'at cursor' }, ...groups] : groups;
    this.changed.fire();
  }

  getChildren(element?: RelatedNode): RelatedNode[] {
    if (!element) {
      return this.roots;
    }
    return element.kind === 'group' ? element.symbols.map((symbol) => ({ kind: 'symbol', symbol, role: element.label })) : [];
  }

  getTreeItem(element: RelatedNode): vscode.TreeItem {
    if (element.kind === 'group') {
      const state = element.symbols.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
      const item = new vscode.TreeItem(element.label, state);
      item.description = String(element.symbols.length);
      item.iconPath = new vscode.ThemeIcon(element.icon);
      return item;
    }
    const { symbol } = element;
    const uri = symbolUri(this.connection, symbol);
    const range = toRange(this.connection, symbol.selectionRange);
    const item = new vscode.TreeItem(symbol.container ? `${symbol.container}.${symbol.name}` : symbol.name);
    item.description = `${displayPath(uri)}:${range.start.line + 1}`;
    item.tooltip = symbol.signature ? `${symbol.signature}\n(${element.role})` : element.role;
    item.iconPath = new vscode.ThemeIcon(symbolKindIcon(symbol.kind));
    item.command = {
      command: 'vscode.open',
      title: 'Open',
      arguments: [uri, { selection: new vscode.Range(range.start, range.start) } satisfies vscode.TextDocumentShowOptions],
    };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export async function findRelated(connection: ServerConnection, tree: RelatedTreeProvider): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme !== 'file') {
    void vscode.window.showInformationMessage('CodeKeep: open a file and put the cursor on a symbol, then run Find Related.');
    return;
  }
  const position = editor.selection.active;
  const result = await connection.request<RelatedResult>(Methods.findRelated, {
    uri: editor.document.uri.toString(),
    position: { line: position.line, character: position.character },
  });
  tree.show(result);
  await vscode.commands.executeCommand('codekeep.related.focus');
  if (!result.symbol && result.calls.length + result.calledBy.length + result.related.length === 0) {
    void vscode.window.showInformationMessage('CodeKeep: no symbol at the cursor.');
  }
}
