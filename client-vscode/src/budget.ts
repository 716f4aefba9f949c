/**
 * The current task's budget as the user sees it: the status bar item, refreshed from
 * ledger reports and pushed by `codekeep/budget`, and a warning popup the first time a
 * task crosses 75 % / 100 % (shown according to `codekeep.nudges.display`).
 */

import * as vscode from 'vscode';
import type { ServerConnection } from './connection';
import { budgetSeverity, type BudgetSeverity } from './format';
import { normalizeHosts, normalizeLedgerReport } from './ledgerHtml';
import { budgetAlert } from './nudges';
import { Methods, type BudgetParams, type LedgerReport } from './protocol';
import { readSettings } from './settings';
import type { BudgetStatusItem } from './statusBar';

export class BudgetTracker implements vscode.Disposable {
  /** The task the budget applies to: the last one the server reported or the agent ran. */
  taskId: string | null = null;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after every budget change (the Ledger Report panel refreshes on it). */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly connection: ServerConnection,
    private readonly item: BudgetStatusItem,
    private readonly agentLog: vscode.OutputChannel,
  ) {}

  /**
   * The task manual records and budgets apply to. The ledger needs a task id for a task
   * budget, so the first use opens one for this editor session, with the configured
   * `codekeep.taskBudget` as its limit.
   */
  async ensureTask(): Promise<string> {
    if (!this.taskId) {
      const now = new Date();
      const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
      this.taskId = `vscode-${stamp}-${Math.random().toString(16).slice(2, 6)}`;
      await this.connection.request(Methods.ledgerBudget, { taskId: this.taskId, limit: readSettings().taskBudget });
    }
    return this.taskId;
  }

  /** How far the team's spend today is into the team's daily budget (warned once each). */
  private teamSeverity: BudgetSeverity = 'normal';

  /** A `codekeep/budget` notification: update the item, warn if it got worse. The
   * team's daily budget (`scope: "team"`) only warns: the item shows this editor's task. */
  apply(update: BudgetParams): void {
    if (update.scope === 'team') {
      const alert = budgetAlert(this.teamSeverity, update);
      this.teamSeverity = budgetSeverity(update.ratio);
      if (alert) {
        this.agentLog.appendLine(`[${new Date().toTimeString().slice(0, 8)}] [team budget] ${alert}`);
        this.present(alert);
      }
      return;
    }
    if (update.taskId) {
      this.taskId = update.taskId;
    }
    const alert = budgetAlert(this.item.severity, update);
    this.item.update(update.used, update.limit, update.taskId);
    if (alert) {
      this.agentLog.appendLine(`[${new Date().toTimeString().slice(0, 8)}] [budget] ${alert}`);
      this.present(alert);
    }
    this.changed.fire();
  }

  /** Asks the ledger for the current task's numbers (after a record, a budget change, a restart). */
  async refresh(): Promise<LedgerReport> {
    const report = normalizeLedgerReport(
      await this.connection.request<unknown>(Methods.ledgerReport, this.taskId ? { taskId: this.taskId } : {}),
    );
    // Every host's calls today, across tasks: Claude Code and Codex sessions show live.
    const today = await this.connection.request<{ hosts?: unknown }>(Methods.ledgerReport, {
      since: new Date().toISOString().slice(0, 10),
      groupBy: 'host',
    });
    report.hosts = normalizeHosts(today?.hosts);
    this.item.setHosts(report.hosts);
    const budget = report.budget;
    if (budget) {
      if (budget.taskId) {
        this.taskId = budget.taskId;
      }
      if (budget.limit) {
        this.apply({ taskId: budget.taskId, used: budget.used, limit: budget.limit, ratio: budget.used / budget.limit });
      } else {
        this.item.update(budget.used, null, budget.taskId);
        this.changed.fire();
      }
    } else {
      // No budget in force yet: show what the next task will get.
      this.item.update(this.taskId ? report.total.inputTokens + report.total.outputTokens : 0, readSettings().taskBudget, this.taskId);
      this.changed.fire();
    }
    return report;
  }

  private present(message: string): void {
    switch (readSettings().nudgeDisplay) {
      case 'notification':
        void vscode.window.showWarningMessage(message, 'Ledger Report').then((choice) => {
          if (choice) {
            void vscode.commands.executeCommand('codekeep.ui.ledgerReport');
          }
        });
        break;
      case 'statusBar':
        vscode.window.setStatusBarMessage(`$(warning) ${message}`, 10_000);
        break;
      case 'off':
        break;
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
