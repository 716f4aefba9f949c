/**
 * The one language-client session with `codekeep serve`: starting it from the settings,
 * restarting it, and surfacing what the server says (nudges, budgets, progress) as events
 * the UI pieces subscribe to. A server that cannot start is reported with the fix, never
 * silently.
 */

import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  LanguageClient,
  State,
  WorkDoneProgress,
  type CancellationToken,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { initializationOptions, serverEnvironment } from './env';
import { retargetLensCommand } from './lensCommands';
import { ServerMessagesFeature } from './messages';
import { ServerProgressFeature, type ProgressValue, type ServerProgressEvent } from './progress';
import { Notifications, type BudgetParams, type NudgeParams } from './protocol';
import { resolveServerCommand, type ResolveEnvironment } from './serverCommand';
import { readSettings } from './settings';

export class ServerNotRunningError extends Error {
  constructor() {
    super('The CodeKeep server is not running. Run "CodeKeep: Restart Server" or check the CodeKeep output.');
  }
}

export class ServerConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  readonly onNudge = this.emitter<NudgeParams>();
  readonly onBudget = this.emitter<BudgetParams>();
  /** Another process wrote to a folder's ledger (a Claude Code hook folded its session). */
  readonly onLedgerChanged = this.emitter<void>();
  readonly onProgress = this.emitter<ServerProgressEvent>();
  /** Fires with true when the server is up and initialized, false when it stops. */
  readonly onRunning = this.emitter<boolean>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  /** Converts server ranges and URIs into VS Code objects (available once started). */
  get converter(): LanguageClient['protocol2CodeConverter'] {
    if (!this.client) {
      throw new ServerNotRunningError();
    }
    return this.client.protocol2CodeConverter;
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      this.onRunning.fire(false);
      try {
        await client.stop(5000);
      } catch (error) {
        this.log.warn(`stopping the server: ${(error as Error).message}`);
      }
      await client.dispose();
    }
  }

  async request<R>(method: string, params: object, token?: CancellationToken): Promise<R> {
    if (this.starting) {
      await this.starting;
    }
    if (!this.client || !this.isRunning) {
      throw new ServerNotRunningError();
    }
    // Passing `undefined` as the token would send the params as a two-element array.
    return token ? this.client.sendRequest<R>(method, params, token) : this.client.sendRequest<R>(method, params);
  }

  /** Listens to `$/progress` for a token the client put into a request's `workDoneToken`. */
  onWorkDoneProgress(token: string, handler: (value: ProgressValue) => void): vscode.Disposable {
    if (!this.client) {
      throw new ServerNotRunningError();
    }
    return this.client.onProgress(WorkDoneProgress.type, token, handler);
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private async doStart(): Promise<void> {
    const settings = readSettings();
    const folders = vscode.workspace.workspaceFolders ?? [];
    const launch = resolveServerCommand(settings, resolveEnvironment(folders[0]?.uri.fsPath), process.env);
    if (!launch.ok) {
      this.log.error(`${launch.message} ${launch.fix}`);
      void this.showStartFailure(`${launch.message} ${launch.fix}`);
      return;
    }
    this.log.info(`starting ${launch.command} ${launch.args.join(' ')} (from ${launch.source})`);
    // No `transport`: TransportKind.stdio would append `--stdio`, which `codekeep serve`
    // does not take (stdio is its default).
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      options: { env: serverEnvironment(settings, process.env), cwd: folders[0]?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      initializationOptions: initializationOptions(settings),
      synchronize: { configurationSection: 'codekeep' },
      middleware: {
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          for (const lens of lenses ?? []) {
            if (lens.command) {
              lens.command = retargetLensCommand(lens.command);
            }
          }
          return lenses;
        },
      },
      initializationFailedHandler: (error) => {
        this.log.error(`the server failed to initialize: ${error instanceof Error ? error.message : String(error)}`);
        void this.showStartFailure(`CodeKeep's server failed to initialize: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient('codekeep', 'CodeKeep', serverOptions, clientOptions);
    client.registerFeature(new ServerProgressFeature(client, this.onProgress));
    const messages = new ServerMessagesFeature(client);
    client.registerFeature(messages);
    client.onNotification(Notifications.nudge, (params: NudgeParams) => this.onNudge.fire(params));
    client.onNotification(Notifications.budget, (params: BudgetParams) => {
      messages.noteBudget(params);
      this.onBudget.fire(params);
    });
    client.onNotification(Notifications.ledgerChanged, () => this.onLedgerChanged.fire());
    client.onDidChangeState((event) => {
      if (event.newState === State.Stopped && this.client === client) {
        this.onRunning.fire(false);
      }
    });
    this.client = client;
    try {
      await client.start();
      this.onRunning.fire(true);
    } catch (error) {
      this.log.error(`the server did not start: ${(error as Error).message}`);
      void this.showStartFailure(
        `CodeKeep's server did not start (${launch.command} ${launch.args.join(' ')}): ${(error as Error).message}`,
      );
    }
  }

  private async showStartFailure(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'codekeep.');
    } else if (choice === 'Show Log') {
      this.log.show();
    }
  }

  private emitter<T>(): vscode.EventEmitter<T> {
    const emitter = new vscode.EventEmitter<T>();
    this.disposables.push(emitter);
    return emitter;
  }
}

function resolveEnvironment(workspaceFolder: string | undefined): ResolveEnvironment {
  return {
    pathVariable: process.env.PATH ?? '',
    platform: process.platform,
    homeDir: os.homedir(),
    workspaceFolder,
    isExecutable(file: string): boolean {
      try {
        fs.accessSync(file, fs.constants.X_OK);
        return fs.statSync(file).isFile();
      } catch {
        return false;
      }
    },
  };
}

