/**
 * Keeps the index status bar item current: live percentages from indexing `$/progress`,
 * and `codekeep/indexStatus` polled quickly while files are pending, slowly once ready
 * (edits and file changes move the symbol count too).
 */

import * as vscode from 'vscode';
import type { ServerConnection } from './connection';
import { isIndexingTitle } from './progress';
import { mergeStatuses, statusesOf } from './indexStatus';
import { Methods } from './protocol';
import type { IndexStatusItem } from './statusBar';

const BUSY_POLL_MS = 1000;
const IDLE_POLL_MS = 15_000;

export class IndexWatcher implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private indexingTokens = new Set<string | number>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly connection: ServerConnection,
    private readonly item: IndexStatusItem,
  ) {
    this.subscriptions.push(
      connection.onProgress.event(({ token, title, value }) => {
        if (!isIndexingTitle(title)) {
          return;
        }
        if (value.kind === 'end') {
          this.indexingTokens.delete(token);
          void this.poll();
        } else {
          this.indexingTokens.add(token);
          item.indexing(value.percentage, value.message);
        }
      }),
      connection.onRunning.event((running) => {
        if (running) {
          item.starting();
          void this.poll();
        } else {
          this.stopPolling();
          this.indexingTokens.clear();
          item.stopped();
        }
      }),
    );
  }

  /** Asks the server now (and reschedules); used after a reindex too. */
  async poll(): Promise<void> {
    this.stopPolling();
    if (!this.connection.isRunning) {
      return;
    }
    let ready = false;
    try {
      const statuses = statusesOf(await this.connection.request<unknown>(Methods.indexStatus, {}));
      const merged = mergeStatuses(statuses);
      ready = merged.ready;
      // While a progress stream is live its percentage is more precise than the poll.
      if (this.indexingTokens.size === 0 || ready) {
        this.item.status(statuses);
      }
    } catch {
      // Server busy or restarting: try again on the next tick.
    }
    if (this.connection.isRunning) {
      this.timer = setTimeout(() => void this.poll(), ready ? IDLE_POLL_MS : BUSY_POLL_MS);
    }
  }

  private stopPolling(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.stopPolling();
    this.subscriptions.forEach((s) => s.dispose());
  }
}
