/**
 * Ledger Report (webview), Set Task Budget and Record Model Usage (for calls made outside
 * CodeKeep, e.g. a chat in the browser, that should still count against the task budget).
 */

import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import type { BudgetTracker } from '../budget';
import type { ServerConnection } from '../connection';
import { formatCount, parseTokenAmount } from '../format';
import { renderLedgerHtml } from '../ledgerHtml';
import { Methods } from '../protocol';
import { readSettings } from '../settings';

export class LedgerReportPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly budget: BudgetTracker,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = budget.onDidChange(() => {
      if (this.panel) {
        void this.render();
      }
    });
  }

  async show(): Promise<void> {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Active);
    } else {
      this.panel = vscode.window.createWebviewPanel('codekeep.ledger', 'CodeKeep Ledger', vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [],
        retainContextWhenHidden: false,
      });
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((message: { type?: string }) => {
        if (message?.type === 'refresh') {
          void this.render();
        }
      });
    }
    await this.render();
  }

  private rendering = false;

  private async render(): Promise<void> {
    const panel = this.panel;
    if (!panel || this.rendering) {
      return;
    }
    this.rendering = true;
    try {
      // refresh() fires onDidChange; the `rendering` flag keeps that from looping back here.
      const report = await this.budget.refresh();
      panel.webview.html = renderLedgerHtml(report, {
        cspSource: panel.webview.cspSource,
        nonce: randomBytes(16).toString('base64'),
        scope: this.budget.taskId ? `task ${this.budget.taskId}` : 'all recorded calls',
      });
    } catch (error) {
      this.log.error(`ledger report: ${(error as Error).message}`);
      void vscode.window.showErrorMessage(`CodeKeep Ledger Report: ${(error as Error).message}`);
    } finally {
      this.rendering = false;
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.panel?.dispose();
  }
}

const amountInput = (title: string, prompt: string, value: string): Thenable<string | undefined> =>
  vscode.window.showInputBox({
    title,
    prompt,
    value,
    ignoreFocusOut: true,
    validateInput: (text) => (parseTokenAmount(text) ? undefined : 'A positive number of tokens, e.g. 150000 or 150k.'),
  });

export async function setTaskBudget(connection: ServerConnection, budget: BudgetTracker): Promise<void> {
  const typed = await amountInput(
    'CodeKeep: Set Task Budget',
    `Token budget for ${budget.taskId ? `task ${budget.taskId}` : 'the current task'} (warning at 75 %)`,
    String(readSettings().taskBudget),
  );
  const limit = typed ? parseTokenAmount(typed) : undefined;
  if (!limit) {
    return;
  }
  await connection.request(Methods.ledgerBudget, { taskId: await budget.ensureTask(), limit });
  await budget.refresh();
  vscode.window.setStatusBarMessage(`CodeKeep: task budget set to ${formatCount(limit)} tokens`, 4000);
}

const CALL_TYPES = [
  { label: 'read_code', description: 'The model read code' },
  { label: 'generate_code', description: 'The model wrote code' },
  { label: 'summarize', description: 'Summaries of files or results' },
  { label: 'plan', description: 'Planning and reasoning' },
  { label: 'tool', description: 'Tool-calling round trips' },
  { label: 'other', description: 'Anything else' },
];

export async function recordUsage(connection: ServerConnection, budget: BudgetTracker): Promise<void> {
  const callType = await vscode.window.showQuickPick(CALL_TYPES, {
    title: 'CodeKeep: Record Model Usage — call type',
    placeHolder: 'What was the model call for?',
  });
  if (!callType) {
    return;
  }
  const model = await vscode.window.showInputBox({
    title: 'CodeKeep: Record Model Usage — model',
    prompt: 'Model name (prices and tokenizer are looked up by it)',
    value: readSettings().model || 'gpt-4o-mini',
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() ? undefined : 'Type the model name.'),
  });
  if (!model) {
    return;
  }
  const input = await amountInput('CodeKeep: Record Model Usage — input tokens', 'Input (prompt) tokens', '');
  const inputTokens = input ? parseTokenAmount(input) : undefined;
  if (!inputTokens) {
    return;
  }
  const output = await vscode.window.showInputBox({
    title: 'CodeKeep: Record Model Usage — output tokens',
    prompt: 'Output (completion) tokens',
    value: '0',
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() === '0' || parseTokenAmount(text) ? undefined : 'A number of tokens, e.g. 0, 800 or 1.2k.'),
  });
  if (output === undefined) {
    return;
  }
  const outputTokens = output.trim() === '0' ? 0 : (parseTokenAmount(output) ?? 0);
  await connection.request(Methods.ledgerRecord, {
    taskId: await budget.ensureTask(),
    callType: callType.label,
    model: model.trim(),
    inputTokens,
    outputTokens,
  });
  await budget.refresh();
  vscode.window.setStatusBarMessage(`CodeKeep: recorded ${formatCount(inputTokens + outputTokens)} tokens (${callType.label})`, 4000);
}
