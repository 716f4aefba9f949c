/**
 * Server-initiated work-done progress (`window/workDoneProgress/create` + `$/progress`).
 *
 * The stock client feature turns every server progress into an anonymous spinner; we
 * need the indexing percentage in our own status bar item and the agent's phase in the
 * Run Agent Task notification. Registered after the built-in features, this feature's
 * `initialize` replaces the stock create-handler before the server can send anything.
 */

import * as vscode from 'vscode';
import {
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type BaseLanguageClient,
  type ClientCapabilities,
  type FeatureState,
  type ProgressToken,
  type StaticFeature,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageclient/node';

export type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export interface ServerProgressEvent {
  token: ProgressToken;
  /** The title given at `begin` (kept for every later report of the same token). */
  title: string;
  value: ProgressValue;
}

/** Progress whose title names indexing drives the index status bar item. */
export function isIndexingTitle(title: string): boolean {
  return /index/i.test(title);
}

export class ServerProgressFeature implements StaticFeature {
  private readonly parts = new Map<ProgressToken, vscode.Disposable>();

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly emitter: vscode.EventEmitter<ServerProgressEvent>,
  ) {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = capabilities.window ?? {};
    capabilities.window.workDoneProgress = true;
  }

  initialize(): void {
    this.client.onRequest(WorkDoneProgressCreateRequest.type, (params) => this.track(params.token));
  }

  clear(): void {
    for (const part of this.parts.values()) {
      part.dispose();
    }
    this.parts.clear();
  }

  private track(token: ProgressToken): void {
    let title = '';
    let spinner: WindowSpinner | undefined;
    const subscription = this.client.onProgress(WorkDoneProgress.type, token, (value) => {
      if (value.kind === 'begin') {
        title = value.title;
        if (!isIndexingTitle(title)) {
          spinner = new WindowSpinner(value, () =>
            this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token }),
          );
        }
      } else if (value.kind === 'report') {
        spinner?.report(value);
      }
      this.emitter.fire({ token, title, value });
      if (value.kind === 'end') {
        this.finish(token);
      }
    });
    this.parts.set(token, {
      dispose: () => {
        subscription.dispose();
        spinner?.done();
      },
    });
  }

  private finish(token: ProgressToken): void {
    this.parts.get(token)?.dispose();
    this.parts.delete(token);
  }
}

/** A status-bar spinner for server work that is not indexing (what the stock feature did). */
class WindowSpinner {
  private progress: vscode.Progress<{ message?: string }> | undefined;
  private resolve: (() => void) | undefined;
  private finished = false;

  constructor(begin: WorkDoneProgressBegin, cancel: () => void) {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: begin.title, cancellable: begin.cancellable },
      (progress, token) => {
        token.onCancellationRequested(cancel);
        this.progress = progress;
        this.report(begin);
        return new Promise<void>((resolve) => {
          this.resolve = resolve;
          if (this.finished) {
            resolve();
          }
        });
      },
    );
  }

  report(value: { message?: string; percentage?: number }): void {
    const percent = value.percentage === undefined ? '' : ` ${Math.round(value.percentage)} %`;
    this.progress?.report({ message: `${value.message ?? ''}${percent}`.trim() });
  }

  done(): void {
    this.finished = true;
    this.resolve?.();
  }
}
