/**
 * The two status bar items: index state (from `$/progress` and `codekeep/indexStatus`)
 * and the task budget (from `codekeep/budget` and ledger reports), with today's spend of
 * the other agent hosts (Claude Code, Codex) beside it. Clicking the budget opens the
 * Ledger Report.
 */

import * as vscode from 'vscode';
import {
  budgetBackgroundColor,
  budgetSeverity,
  budgetText,
  budgetTooltip,
  externalHostsText,
  indexingText,
  indexStatusText,
  indexStatusTooltip,
  type BudgetSeverity,
} from './format';
import { mergeStatuses } from './indexStatus';
import type { IndexStatus, LedgerHostRow } from './protocol';

export class IndexStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('codekeep.index', vscode.StatusBarAlignment.Left, 10);

  constructor() {
    this.item.name = 'CodeKeep Index';
    this.item.command = 'codekeep.ui.searchSymbols';
    this.starting();
    this.item.show();
  }

  starting(): void {
    this.item.text = '$(sync~spin) CodeKeep: starting';
    this.item.tooltip = 'The CodeKeep server is starting.';
    this.item.backgroundColor = undefined;
  }

  stopped(): void {
    this.item.text = '$(circle-slash) CodeKeep: stopped';
    this.item.tooltip = 'The CodeKeep server is not running. Click to restart it.';
    this.item.command = 'codekeep.ui.restartServer';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
  }

  indexing(percentage: number | undefined, message?: string): void {
    this.item.text = indexingText(percentage);
    this.item.tooltip = message ? `Indexing: ${message}` : 'Indexing the workspace';
    this.item.command = 'codekeep.ui.searchSymbols';
    this.item.backgroundColor = undefined;
  }

  status(statuses: IndexStatus[]): void {
    const merged = mergeStatuses(statuses);
    this.item.text = indexStatusText(merged);
    this.item.tooltip = `${indexStatusTooltip(merged)}\nClick to search symbols.`;
    this.item.command = 'codekeep.ui.searchSymbols';
    this.item.backgroundColor = undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}

export class BudgetStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('codekeep.budget', vscode.StatusBarAlignment.Left, 9);
  private current: BudgetSeverity = 'normal';
  /** Today's calls of the other agent hosts (Claude Code, Codex), shown beside the budget. */
  private hosts: LedgerHostRow[] = [];

  constructor() {
    this.item.name = 'CodeKeep Token Budget';
    this.item.command = 'codekeep.ui.ledgerReport';
  }

  /** The severity shown now (used to pop up a warning only when it gets worse). */
  get severity(): BudgetSeverity {
    return this.current;
  }

  update(used: number, limit: number | null, taskId: string | null): void {
    const ratio = limit ? used / limit : null;
    this.current = budgetSeverity(ratio);
    const external = externalHostsText(this.hosts);
    this.item.text = external ? `${budgetText(used, limit)} · ${external}` : budgetText(used, limit);
    this.item.tooltip = budgetTooltip(used, limit, taskId) + (external ? `\nToday in other agents: ${external}` : '');
    const color = budgetBackgroundColor(this.current);
    this.item.backgroundColor = color ? new vscode.ThemeColor(color) : undefined;
    this.item.show();
  }

  /** Today's calls per agent host; shown from the next update on. */
  setHosts(hosts: LedgerHostRow[]): void {
    this.hosts = hosts;
  }

  dispose(): void {
    this.item.dispose();
  }
}
