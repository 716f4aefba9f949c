/**
 * Reindex Workspace: asks the server to rebuild the code map of every folder. A server
 * without `codekeep/reindex` is restarted instead: on start it brings every folder's index
 * up to date with the disk (changed, new and deleted files), which is what the user wants.
 */

import * as vscode from 'vscode';
import { ErrorCodes, ResponseError } from 'vscode-languageclient/node';
import type { ServerConnection } from '../connection';
import { Methods } from '../protocol';

export async function reindex(connection: ServerConnection, afterwards: () => Promise<void>): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'CodeKeep: reindexing the workspace…' },
    async () => {
      try {
        await connection.request(Methods.reindex, {});
      } catch (error) {
        if (!(error instanceof ResponseError && error.code === ErrorCodes.MethodNotFound)) {
          throw error;
        }
        await connection.restart();
      }
    },
  );
  await afterwards();
}
