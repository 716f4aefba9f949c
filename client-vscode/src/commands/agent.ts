/**
 * Run Agent Task: a cancellable progress notification that shows the agent's phase as
 * the server reports it; the answer (with the tool calls made) opens in a Markdown panel.
 */

import { randomUUID } from 'crypto';
import * as vscode from 'vscode';
import type { BudgetTracker } from '../budget';
import type { ServerConnection } from '../connection';
import { agentAnswerMarkdown, unfinishedText, type AgentStep } from '../markdown';
import type { MarkdownDocuments } from '../markdownDocs';
import { isIndexingTitle, type ProgressValue } from '../progress';
import { Methods, type AgentRunResult } from '../protocol';
import { readSettings } from '../settings';

/** The server's capability presets: which tools the model is shown (chat first: the default). */
const CAPABILITIES: vscode.QuickPickItem[] = [
  { label: 'chat', description: 'read, search and use memory (the default)' },
  { label: 'explore', description: 'read-only: code map, search, files, recall' },
  { label: 'edit', description: 'chat plus write_file and run_command' },
];

export async function runAgentTask(
  connection: ServerConnection,
  documents: MarkdownDocuments,
  budget: BudgetTracker,
  agentLog: vscode.OutputChannel,
): Promise<void> {
  const task = await vscode.window.showInputBox({
    title: 'CodeKeep: Run Agent Task',
    prompt: 'What should the agent do? (next: which tools it may use)',
    placeHolder: 'e.g. Explain how the ledger attributes tokens to files',
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Describe the task.'),
  });
  if (!task) {
    return;
  }
  const capability = await vscode.window.showQuickPick(CAPABILITIES, {
    title: 'CodeKeep: Run Agent Task — capability',
    placeHolder: 'Which tools may the agent use?',
    ignoreFocusOut: true,
  });
  if (!capability) {
    return;
  }
  const steps: AgentStep[] = [];
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'CodeKeep agent', cancellable: true },
    async (progress, cancellation) => {
      progress.report({ message: 'starting…' });
      const onValue = (value: ProgressValue): void => {
        const message = value.message; // a begin's title only repeats the task
        if (!message) {
          return;
        }
        // The server reports "EXPLORE · step 3/24": the phase word leads.
        const phase = /^([A-Z]{3,})\b/.exec(message)?.[1];
        steps.push({ phase, message: phase ? message.slice(phase.length).replace(/^[\s:·-]+/, '') : message });
        agentLog.appendLine(`[${new Date().toTimeString().slice(0, 8)}] [progress] ${message}`);
        progress.report({ message });
      };
      const token = `codekeep-agent-${randomUUID()}`;
      const subscriptions = [
        connection.onWorkDoneProgress(token, onValue),
        // Servers may also create their own progress for the run instead of using our token.
        connection.onProgress.event((event) => {
          if (!isIndexingTitle(event.title) && /agent/i.test(event.title)) {
            onValue(event.value);
          }
        }),
      ];
      try {
        const editor = vscode.window.activeTextEditor;
        return await connection.request<AgentRunResult>(
          Methods.agentRun,
          {
            task: task.trim(),
            capability: capability.label,
            budget: readSettings().taskBudget,
            workDoneToken: token,
            // Multi-root: the agent works in the folder of the active editor.
            ...(editor?.document.uri.scheme === 'file' ? { uri: editor.document.uri.toString() } : {}),
          },
          cancellation,
        );
      } finally {
        subscriptions.forEach((s) => s.dispose());
      }
    },
  );
  budget.taskId = result.taskId;
  agentLog.appendLine(`[${new Date().toTimeString().slice(0, 8)}] [done] task ${result.taskId}: ${result.iterations} iterations, ${result.toolCalls.length} tool calls, ${result.tokens} tokens`);
  await documents.show(`agent-${result.taskId}`, agentAnswerMarkdown(task.trim(), result, steps));
  const unfinished = unfinishedText(result);
  if (unfinished) {
    void vscode.window.showWarningMessage(`CodeKeep agent: ${unfinished}`);
  }
  void budget.refresh().catch(() => undefined);
}
