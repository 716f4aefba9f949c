/** Multi-root: which workspace folder a folder-wide command applies to. */

import * as vscode from 'vscode';

/** The folder of the active editor, the only folder, or one the user picks. */
export async function pickFolder(placeHolder: string): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showInformationMessage('CodeKeep: open a folder first.');
    return undefined;
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  const current = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
  if (folders.length === 1) {
    return folders[0];
  }
  return vscode.window.showWorkspaceFolderPick({ placeHolder: current ? `${placeHolder} (current: ${current.name})` : placeHolder });
}
