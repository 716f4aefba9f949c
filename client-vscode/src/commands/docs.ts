/** Search Docs: a question -> the doc sections that answer it -> the chosen one opened at its lines. */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { docPickItem, oneLine, type DocPickItem } from '../items';
import { Methods, type DocResult, type DocsSearchResult } from '../protocol';

export async function searchDocs(connection: ServerConnection): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const query = await vscode.window.showInputBox({
    title: 'CodeKeep: Search Docs',
    prompt: "Ask the project's docs (e.g. how do we deploy, how is caching configured)",
    value: editor && !editor.selection.isEmpty && editor.selection.isSingleLine ? editor.document.getText(editor.selection).trim() : '',
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Type a question or a few words.'),
  });
  if (!query) {
    return;
  }
  // The file being edited: sections naming its symbols rank higher.
  const focus = editor?.document.uri.scheme === 'file' ? { uri: editor.document.uri.toString(), focus: [editor.document.uri.toString()] } : {};
  const result = await connection.request<DocsSearchResult>(Methods.docsSearch, { query: query.trim(), limit: 20, ...focus });
  if (result.results.length === 0) {
    void vscode.window.showInformationMessage(`CodeKeep: ${result.reason ?? `nothing in the docs matches "${query.trim()}"`}.`);
    return;
  }
  const picked = await vscode.window.showQuickPick<DocPickItem>(result.results.map(docPickItem), {
    title: `CodeKeep: ${result.results.length} doc sections for "${oneLine(query, 40)}"`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked) {
    await openSection(connection, picked.doc);
  }
}

/** Opens the section's file with its lines selected (1-based inclusive -> a VS Code range). */
async function openSection(connection: ServerConnection, doc: DocResult): Promise<void> {
  const start = new vscode.Position(doc.startLine - 1, 0);
  const end = new vscode.Position(doc.endLine, 0);
  const editor = await vscode.window.showTextDocument(connection.converter.asUri(doc.uri), {
    selection: new vscode.Selection(start, start),
    preview: true,
  });
  editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.AtTop);
}
