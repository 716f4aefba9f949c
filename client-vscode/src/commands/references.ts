/**
 * Find References: at the cursor, or for a symbol picked by name. Results go into VS
 * Code's References view (the built-in `vscode.references-view` extension's API), files in
 * the order the server ranked them (resolved references first); name-only matches are
 * labelled so the user knows which ones are guesses. Falls back to the peek view when the
 * References view is unavailable.
 */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { Methods, type FindReferencesResult, type ReferenceInfo } from '../protocol';
import type { SymbolTree, SymbolTreeInput, SymbolTreeModel } from '../referencesView';
import { symbolNameFromId } from '../symbolId';
import { displayPath, toRange } from '../ui';
import { pickSymbolByName } from './symbols';

interface FileNode {
  kind: 'file';
  uri: vscode.Uri;
  references: ReferenceNode[];
}

interface ReferenceNode {
  kind: 'reference';
  file: FileNode;
  location: vscode.Location;
  confidence: string;
}

type Node = FileNode | ReferenceNode;

/**
 * `target` comes from a code lens (`{symbolId}`); without it the symbol at the cursor is
 * used, or one picked by name when no file editor is active.
 */
export async function findReferences(connection: ServerConnection, target?: { symbolId?: string }): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  let params: Record<string, unknown>;
  let anchor: vscode.Location | undefined;
  let title: string;
  if (target?.symbolId) {
    params = { symbolId: target.symbolId, limit: 1000 };
    anchor = editor ? new vscode.Location(editor.document.uri, editor.selection.active) : undefined;
    title = `References to ${symbolNameFromId(target.symbolId)}`;
  } else if (editor && editor.document.uri.scheme === 'file') {
    const position = editor.selection.active;
    params = { uri: editor.document.uri.toString(), position: { line: position.line, character: position.character }, limit: 1000 };
    anchor = new vscode.Location(editor.document.uri, position);
    const word = editor.document.getWordRangeAtPosition(position);
    title = word ? `References to ${editor.document.getText(word)}` : 'References';
  } else {
    const symbol = await pickSymbolByName(connection, 'CodeKeep: Find References');
    if (!symbol) {
      return;
    }
    params = { symbolId: symbol.id, limit: 1000 };
    anchor = new vscode.Location(connection.converter.asUri(symbol.uri), toRange(connection, symbol.selectionRange));
    title = `References to ${symbol.name}`;
  }
  const result = await connection.request<FindReferencesResult>(Methods.findReferences, params);
  if (result.references.length === 0) {
    void vscode.window.showInformationMessage(`CodeKeep: no references found (${title.toLowerCase()}).`);
    return;
  }
  await showReferences(connection, anchor, title, result);
}

async function showReferences(
  connection: ServerConnection,
  requestedAnchor: vscode.Location | undefined,
  title: string,
  result: FindReferencesResult,
): Promise<void> {
  const files = groupByFile(connection, result.references);
  const anchor = requestedAnchor ?? files[0].references[0].location;
  const api = await referencesViewApi();
  if (!api) {
    const locations = files.flatMap((file) => file.references.map((ref) => ref.location));
    await vscode.commands.executeCommand('editor.action.showReferences', anchor.uri, anchor.range.start, locations);
    return;
  }
  const shown = result.references.length;
  const more = result.total > shown ? ` (showing ${shown} of ${result.total})` : '';
  api.setInput(new ReferencesInput(anchor, title, files, `${result.total} references in ${files.length} files${more}`));
}

/** Groups references by file, keeping the server's order (resolved ones come first). */
function groupByFile(connection: ServerConnection, references: ReferenceInfo[]): FileNode[] {
  const files = new Map<string, FileNode>();
  for (const reference of references) {
    const uri = connection.converter.asUri(reference.uri);
    let file = files.get(uri.toString());
    if (!file) {
      file = { kind: 'file', uri, references: [] };
      files.set(uri.toString(), file);
    }
    file.references.push({
      kind: 'reference',
      file,
      location: new vscode.Location(uri, toRange(connection, reference.range)),
      confidence: reference.confidence,
    });
  }
  return [...files.values()];
}

async function referencesViewApi(): Promise<SymbolTree | undefined> {
  const extension = vscode.extensions.getExtension<SymbolTree>('vscode.references-view');
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

class ReferencesInput implements SymbolTreeInput<Node> {
  readonly contextValue = 'codekeepReferences';

  constructor(
    readonly location: vscode.Location,
    readonly title: string,
    private readonly files: FileNode[],
    private readonly message: string,
  ) {}

  resolve(): SymbolTreeModel<Node> {
    const files = this.files;
    const flat = files.flatMap((file) => file.references);
    return {
      message: this.message,
      provider: new ReferencesTreeProvider(files),
      navigation: {
        nearest: (uri, position) =>
          flat.find((ref) => ref.location.uri.toString() === uri.toString() && ref.location.range.contains(position)) ??
          flat.find((ref) => ref.location.uri.toString() === uri.toString()),
        next: (from) => step(flat, from, 1),
        previous: (from) => step(flat, from, -1),
        location: (item) => (item.kind === 'reference' ? item.location : undefined),
      },
      highlights: {
        getEditorHighlights: (_item, uri) =>
          flat.filter((ref) => ref.location.uri.toString() === uri.toString()).map((ref) => ref.location.range),
      },
    };
  }

  with(location: vscode.Location): ReferencesInput {
    return new ReferencesInput(location, this.title, this.files, this.message);
  }
}

function step(flat: ReferenceNode[], from: Node, delta: number): ReferenceNode {
  const start = from.kind === 'file' ? from.references[0] : from;
  const index = flat.indexOf(start);
  return flat[(index + delta + flat.length) % flat.length];
}

class ReferencesTreeProvider implements vscode.TreeDataProvider<Node> {
  constructor(private readonly files: FileNode[]) {}

  getChildren(element?: Node): Node[] {
    if (!element) {
      return this.files;
    }
    return element.kind === 'file' ? element.references : [];
  }

  getParent(element: Node): Node | undefined {
    return element.kind === 'reference' ? element.file : undefined;
  }

  async getTreeItem(element: Node): Promise<vscode.TreeItem> {
    if (element.kind === 'file') {
      const item = new vscode.TreeItem(element.uri, vscode.TreeItemCollapsibleState.Expanded);
      const relative = displayPath(element.uri);
      const folder = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : '';
      item.description = folder ? `${folder} · ${element.references.length}` : String(element.references.length);
      item.iconPath = vscode.ThemeIcon.File;
      return item;
    }
    const { location } = element;
    const line = await lineText(location);
    const item = new vscode.TreeItem(line.trim() || `line ${location.range.start.line + 1}`);
    item.description = element.confidence === 'resolved' ? `${location.range.start.line + 1}` : `${location.range.start.line + 1} · name match`;
    item.tooltip = element.confidence === 'resolved' ? 'Resolved reference' : 'Matched by name only (not resolved through imports)';
    item.command = {
      command: 'vscode.open',
      title: 'Open',
      arguments: [location.uri, { selection: location.range } satisfies vscode.TextDocumentShowOptions],
    };
    return item;
  }
}

async function lineText(location: vscode.Location): Promise<string> {
  try {
    const document = await vscode.workspace.openTextDocument(location.uri);
    return document.lineAt(location.range.start.line).text;
  } catch {
    return '';
  }
}
