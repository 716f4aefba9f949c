/** Find Symbol (exact name -> quick pick) and Search Symbols (live fuzzy quick pick). */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { symbolPickItem, type SymbolPickItem } from '../items';
import { Methods, type FindSymbolResult, type SymbolInfo } from '../protocol';
import { revealSymbol, symbolDisplayPath, wordAtCursor } from '../ui';

const SEARCH_DEBOUNCE_MS = 120;

/** Asks for a name and lets the user pick one of its definitions; undefined if cancelled. */
export async function pickSymbolByName(connection: ServerConnection, title: string): Promise<SymbolInfo | undefined> {
  const name = await vscode.window.showInputBox({
    title,
    prompt: 'Symbol name (exact, e.g. CodeMap or CodeMap.find_symbol)',
    value: wordAtCursor(),
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Type a symbol name.'),
  });
  if (!name) {
    return undefined;
  }
  const result = await connection.request<FindSymbolResult>(Methods.findSymbol, { name: name.trim(), limit: 200 });
  if (result.symbols.length === 0) {
    void vscode.window.showInformationMessage(`CodeKeep: no symbol named "${name.trim()}". Try Search Symbols for a fuzzy match.`);
    return undefined;
  }
  const items = result.symbols.map((symbol) => symbolPickItem(symbol, symbolDisplayPath(connection)));
  const picked = await vscode.window.showQuickPick(items, {
    title: `${result.symbols.length} definition${result.symbols.length === 1 ? '' : 's'} of ${name.trim()}`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.symbol;
}

export async function findSymbol(connection: ServerConnection): Promise<void> {
  const symbol = await pickSymbolByName(connection, 'CodeKeep: Find Symbol');
  if (symbol) {
    await revealSymbol(connection, symbol);
  }
}

/** A quick pick that asks the server on every keystroke (debounced, older requests cancelled). */
export function searchSymbols(connection: ServerConnection): Promise<void> {
  const pick = vscode.window.createQuickPick<SymbolPickItem>();
  pick.title = 'CodeKeep: Search Symbols';
  pick.placeholder = 'Type part of a name: fuzzy, camelCase and snake_case aware';
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  pick.value = wordAtCursor();
  let pending: vscode.CancellationTokenSource | undefined;
  let timer: NodeJS.Timeout | undefined;

  const search = (query: string): void => {
    pending?.cancel();
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    const source = new vscode.CancellationTokenSource();
    pending = source;
    pick.busy = true;
    connection
      .request<FindSymbolResult>(Methods.searchSymbols, { query: query.trim(), limit: 50 }, source.token)
      .then((result) => {
        if (source.token.isCancellationRequested) {
          return;
        }
        // The server already ranked fuzzily; alwaysShow keeps VS Code's own filter from hiding rows.
        pick.items = result.symbols.map((symbol) => ({
          ...symbolPickItem(symbol, symbolDisplayPath(connection)),
          alwaysShow: true,
        }));
        pick.busy = false;
      })
      .catch((error: Error) => {
        if (!source.token.isCancellationRequested) {
          pick.busy = false;
          pick.items = [];
          pick.placeholder = `Search failed: ${error.message}`;
        }
      });
  };

  return new Promise<void>((resolve) => {
    pick.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => search(value), SEARCH_DEBOUNCE_MS);
    });
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      if (chosen) {
        void revealSymbol(connection, chosen.symbol);
      }
    });
    pick.onDidHide(() => {
      clearTimeout(timer);
      pending?.cancel();
      pick.dispose();
      resolve();
    });
    pick.show();
    search(pick.value);
  });
}
