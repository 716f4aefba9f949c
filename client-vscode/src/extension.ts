/**
 * Entry point: builds the pieces (server connection, status bar, views, commands) and
 * wires the server's events to them. The server does the work; this stays a thin client.
 */

import * as vscode from 'vscode';
import { BudgetTracker } from './budget';
import { runAgentTask } from './commands/agent';
import { searchDocs } from './commands/docs';
import { ImpactTreeProvider, showImpact } from './commands/impact';
import { LedgerReportPanel, recordUsage, setTaskBudget } from './commands/ledger';
import { listTeamMemories, openMemoryNotes, promoteMemory, recall, remember, reviewLearned } from './commands/memory';
import { findReferences } from './commands/references';
import { RelatedTreeProvider, findRelated } from './commands/related';
import { reindex } from './commands/reindex';
import { showRepoMap } from './commands/repoMap';
import { findSymbol, searchSymbols } from './commands/symbols';
import { ServerConnection } from './connection';
import { IndexWatcher } from './indexWatcher';
import { MarkdownDocuments } from './markdownDocs';
import { isWarningNudge, nudgeLogLine, nudgeMessage } from './nudges';
import type { NudgeParams } from './protocol';
import { needsRestart, readSettings } from './settings';
import { BudgetStatusItem, IndexStatusItem } from './statusBar';
import { guarded } from './ui';

let connection: ServerConnection | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('CodeKeep', { log: true });
  const agentLog = vscode.window.createOutputChannel('CodeKeep Agent');
  const server = new ServerConnection(log);
  connection = server;
  const indexItem = new IndexStatusItem();
  const budgetItem = new BudgetStatusItem();
  const budget = new BudgetTracker(server, budgetItem, agentLog);
  const indexWatcher = new IndexWatcher(server, indexItem);
  const documents = new MarkdownDocuments();
  const related = new RelatedTreeProvider(server);
  const impact = new ImpactTreeProvider();
  const ledgerPanel = new LedgerReportPanel(budget, log);
  context.subscriptions.push(log, agentLog, server, indexItem, budgetItem, budget, indexWatcher, documents, related, impact, ledgerPanel);
  context.subscriptions.push(vscode.window.registerTreeDataProvider('codekeep.related', related));
  impact.view = vscode.window.createTreeView('codekeep.impact', { treeDataProvider: impact, showCollapseAll: true });
  context.subscriptions.push(impact.view);

  context.subscriptions.push(
    server.onNudge.event((nudge) => presentNudge(nudge, agentLog)),
    server.onBudget.event((update) => budget.apply(update)),
    server.onLedgerChanged.event(() => void budget.refresh().catch((error: Error) => log.warn(`ledger refresh: ${error.message}`))),
    server.onRunning.event((running) => {
      if (running) {
        void budget.refresh().catch((error: Error) => log.warn(`budget: ${error.message}`));
      }
    }),
  );

  const command = <A extends unknown[]>(id: string, title: string, run: (...args: A) => Promise<unknown>): void => {
    context.subscriptions.push(vscode.commands.registerCommand(`codekeep.ui.${id}`, guarded(log, title, run)));
  };
  command('findSymbol', 'Find Symbol', () => findSymbol(server));
  command('searchSymbols', 'Search Symbols', () => searchSymbols(server));
  command('findReferences', 'Find References', (target?: { symbolId?: string }) => findReferences(server, target));
  command('findRelated', 'Find Related', () => findRelated(server, related));
  command('showImpact', 'Show Impact of Changes', () => showImpact(server, impact));
  command('showRepoMap', 'Show Repo Map', () => showRepoMap(server, documents));
  command('searchDocs', 'Search Docs', () => searchDocs(server));
  command('remember', 'Remember', () => remember(server));
  command('rememberForTeam', 'Remember for the Team', () => remember(server, 'team'));
  command('listTeamMemories', 'Team Memories', () => listTeamMemories(server));
  command('promoteMemory', 'Promote Memory to Team', () => promoteMemory(server));
  command('recall', 'Recall', () => recall(server));
  command('reviewLearned', 'Review Learned Memories', () => reviewLearned(server));
  command('openMemoryNotes', 'Open MEMORY.md', () => openMemoryNotes());
  command('ledgerReport', 'Ledger Report', () => ledgerPanel.show());
  command('setTaskBudget', 'Set Task Budget', () => setTaskBudget(server, budget));
  command('recordUsage', 'Record Model Usage', () => recordUsage(server, budget));
  command('runAgentTask', 'Run Agent Task', () => runAgentTask(server, documents, budget, agentLog));
  command('reindex', 'Reindex Workspace', () => reindex(server, () => indexWatcher.poll()));
  command('restartServer', 'Restart Server', () => server.restart());

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (needsRestart(event)) {
        log.info('settings changed: restarting the server');
        void server.restart();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (!server.isRunning && hasFolders()) {
        void server.start();
      }
    }),
  );

  if (hasFolders()) {
    await server.start();
  } else {
    log.info('no folder is open: the server starts when one is added');
  }
}

export async function deactivate(): Promise<void> {
  await connection?.stop();
  connection = undefined;
}

function hasFolders(): boolean {
  return (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
}

/** Every nudge goes to the Agent channel; how loudly it is shown follows the setting. */
function presentNudge(nudge: NudgeParams, agentLog: vscode.OutputChannel): void {
  agentLog.appendLine(nudgeLogLine(nudge, new Date()));
  const message = nudgeMessage(nudge);
  switch (readSettings().nudgeDisplay) {
    case 'notification':
      if (isWarningNudge(nudge.type)) {
        void vscode.window.showWarningMessage(message);
      } else {
        void vscode.window.showInformationMessage(message);
      }
      break;
    case 'statusBar':
      vscode.window.setStatusBarMessage(`${isWarningNudge(nudge.type) ? '$(warning)' : '$(lightbulb)'} ${message}`, 10_000);
      break;
    case 'off':
      break;
  }
}
