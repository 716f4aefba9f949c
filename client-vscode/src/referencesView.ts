/**
 * The public API of VS Code's built-in References view (`vscode.references-view`), as
 * documented in its `references-view.d.ts`. Only the parts this extension uses.
 */

import type * as vscode from 'vscode';

export interface SymbolTree {
  setInput(input: SymbolTreeInput<unknown>): void;
  getInput(): SymbolTreeInput<unknown> | undefined;
}

export interface SymbolTreeInput<T> {
  readonly contextValue: string;
  readonly title: string;
  readonly location: vscode.Location;
  resolve(): vscode.ProviderResult<SymbolTreeModel<T>>;
  with(location: vscode.Location): SymbolTreeInput<T>;
}

export interface SymbolTreeModel<T> {
  provider: vscode.TreeDataProvider<T>;
  message: string | undefined;
  navigation?: {
    nearest(uri: vscode.Uri, position: vscode.Position): T | undefined;
    next(from: T): T;
    previous(from: T): T;
    location(item: T): vscode.Location | undefined;
  };
  highlights?: {
    getEditorHighlights(item: T, uri: vscode.Uri): vscode.Range[] | undefined;
  };
  dispose?(): void;
}
