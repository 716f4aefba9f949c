/** Show Repo Map: the ranked outline of a folder for a chosen token budget, as a Markdown preview. */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { parseTokenAmount } from '../format';
import { repoMapMarkdown } from '../markdown';
import type { MarkdownDocuments } from '../markdownDocs';
import { Methods, type RepoMapResult } from '../protocol';
import { pickFolder } from '../folders';

const BUDGETS = ['512', '1024', '2048', '4096', '8192'];

export async function showRepoMap(connection: ServerConnection, documents: MarkdownDocuments): Promise<void> {
  const folder = await pickFolder('Repo map of which folder?');
  if (!folder) {
    return;
  }
  const choice = await vscode.window.showQuickPick([...BUDGETS.map((b) => ({ label: b, description: 'tokens' })), { label: 'Other…', description: '' }], {
    title: 'CodeKeep: Show Repo Map — token budget',
    placeHolder: 'How many tokens may the map use?',
  });
  if (!choice) {
    return;
  }
  let tokens = parseTokenAmount(choice.label);
  if (tokens === undefined) {
    const typed = await vscode.window.showInputBox({
      title: 'CodeKeep: Show Repo Map — token budget',
      prompt: 'Tokens (e.g. 3000 or 3k)',
      validateInput: (value) => (parseTokenAmount(value) ? undefined : 'A positive number of tokens, e.g. 3000 or 3k.'),
    });
    tokens = typed ? parseTokenAmount(typed) : undefined;
  }
  if (!tokens) {
    return;
  }
  const result = await connection.request<RepoMapResult>(Methods.repoMap, { tokens, focus: [], uri: folder.uri.toString() });
  await documents.show(`repo-map-${folder.name}`, repoMapMarkdown(result, tokens, folder.name));
}
