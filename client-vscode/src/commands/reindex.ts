/** Reindex Workspace: asks the server to rebuild the code map of every folder. */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { Methods } from '../protocol';

export async function reindex(connection: ServerConnection, afterwards: () => Promise<void>): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'CodeKeep: reindexing the workspace…' },
    () => connection.request(Methods.reindex, {}),
  );
  await afterwards();
}
