/**
 * Read-only Markdown documents the extension generates (repo map, agent answers), served
 * from a virtual `codekeep-doc:` scheme and shown in VS Code's Markdown preview — nothing
 * is written into the user's workspace.
 */

import * as vscode from 'vscode';

export const SCHEME = 'codekeep-doc';

export class MarkdownDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Stores `markdown` under `name` and opens it in the Markdown preview beside the editor. */
  async show(name: string, markdown: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${name}.md` });
    this.contents.set(uri.toString(), markdown);
    this.changed.fire(uri);
    await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
