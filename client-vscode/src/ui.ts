/**
 * Small VS Code helpers every command shares: error reporting, opening a symbol,
 * workspace-relative paths.
 */

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import type { ServerConnection } from './connection';
import type { Range, SymbolInfo } from './protocol';

/** Wraps a command so a failure becomes one readable error notification, not a silent log line. */
export function guarded<A extends unknown[]>(
  log: vscode.LogOutputChannel,
  title: string,
  run: (...args: A) => Promise<unknown>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      if (error instanceof vscode.CancellationError || isCancelled(error)) {
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      log.error(`${title}: ${message}`);
      void vscode.window.showErrorMessage(`CodeKeep ${title}: ${message}`);
    }
  };
}

function isCancelled(error: unknown): boolean {
  return error instanceof ResponseError && (error.code === -32800 || error.code === -32802);
}

export function toRange(connection: ServerConnection, range: Range): vscode.Range {
  return connection.converter.asRange(range);
}

export function symbolUri(connection: ServerConnection, symbol: SymbolInfo): vscode.Uri {
  return connection.converter.asUri(symbol.uri);
}

/** Opens the symbol's file with the cursor on its name. */
export async function revealSymbol(connection: ServerConnection, symbol: SymbolInfo): Promise<vscode.TextEditor> {
  const range = toRange(connection, symbol.selectionRange);
  const editor = await vscode.window.showTextDocument(symbolUri(connection, symbol), {
    selection: new vscode.Selection(range.start, range.start),
    preview: false,
  });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}

/** The path shown to the user: relative to its workspace folder (prefixed in multi-root). */
export function displayPath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
}

export function symbolDisplayPath(connection: ServerConnection): (symbol: SymbolInfo) => string {
  return (symbol) => displayPath(symbolUri(connection, symbol));
}

/** The identifier under the cursor, used to pre-fill input boxes. */
export function wordAtCursor(): string {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return '';
  }
  const selection = editor.selection;
  if (!selection.isEmpty && selection.isSingleLine) {
    return editor.document.getText(selection).trim();
  }
  const range = editor.document.getWordRangeAtPosition(selection.active);
  return range ? editor.document.getText(range) : '';
}
