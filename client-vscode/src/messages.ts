/**
 * `window/showMessage` from the server, shown as the stock client does — except the
 * warning the ledger sends alongside each `codekeep/budget` notification. The extension
 * already presents that crossing (status bar colour, a warning with a Ledger Report
 * button, `codekeep.nudges.display`), so the echo would be a second popup saying the same.
 */

import * as vscode from 'vscode';
import {
  MessageType,
  ShowMessageNotification,
  type BaseLanguageClient,
  type FeatureState,
  type ShowMessageParams,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { isBudgetEcho } from './nudges';
import type { BudgetParams } from './protocol';

export class ServerMessagesFeature implements StaticFeature {
  private lastBudget: { update: BudgetParams; at: number } | undefined;

  constructor(private readonly client: BaseLanguageClient) {}

  /** Called for every `codekeep/budget` notification, before its echo arrives. */
  noteBudget(update: BudgetParams): void {
    this.lastBudget = { update, at: Date.now() };
  }

  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(): void {}

  initialize(): void {
    this.client.onNotification(ShowMessageNotification.type, (message) => this.show(message));
  }

  clear(): void {
    this.lastBudget = undefined;
  }

  private show(message: ShowMessageParams): void {
    const budget = this.lastBudget;
    if (message.type === MessageType.Warning && budget && isBudgetEcho(message.message, budget.update, Date.now() - budget.at)) {
      return;
    }
    switch (message.type) {
      case MessageType.Error:
        void vscode.window.showErrorMessage(message.message);
        break;
      case MessageType.Warning:
        void vscode.window.showWarningMessage(message.message);
        break;
      default:
        void vscode.window.showInformationMessage(message.message);
    }
  }
}
