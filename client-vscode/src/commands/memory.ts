/**
 * Remember (selection or typed text, linked to the current file and symbol; for this
 * project or for the team), Recall (scored memories, the team's included, with Forget /
 * Not This / Promote to Team buttons), the team's memories, Promote to Team, and Open
 * MEMORY.md. Team commands need a team database (`codekeep.team.dsn`, docs/team.md);
 * without one the server's one-line reason is shown.
 */

import * as vscode from 'vscode';
import type { ServerConnection } from '../connection';
import { pickFolder } from '../folders';
import { canPromote, memoryPickItem, oneLine, promotedMessage, type MemoryPickItem } from '../items';
import { Methods, type MemoryInfo, type RelatedResult, type RememberResult } from '../protocol';

/** The long-term kinds a user writes by hand (the memory service's KINDS). */
const MEMORY_KINDS: { label: string; description: string }[] = [
  { label: 'fact', description: 'How the code is: "the ledger flushes every 500 ms"' },
  { label: 'insight', description: 'Something learned the hard way: "tests hang when …"' },
  { label: 'preference', description: 'How things must be done here: "never mock our own services"' },
  { label: 'soft_preference', description: 'A leaning, not a rule: "prefer small modules"' },
  { label: 'note', description: 'Anything else worth keeping' },
];

/** `project`: this repository's memory; `team`: shared through the team database. */
export type RememberScope = 'project' | 'team';

export async function remember(connection: ServerConnection, scope: RememberScope = 'project'): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).trim() : '';
  const team = scope === 'team';
  const content = await vscode.window.showInputBox({
    title: team ? 'CodeKeep: Remember for the Team' : 'CodeKeep: Remember',
    prompt: team
      ? "What should every member's agent know? (secrets are redacted before it leaves this machine)"
      : 'What should CodeKeep remember? (linked to the current file and symbol)',
    value: selected,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim().length >= 3 ? undefined : 'Write at least a few words.'),
  });
  if (!content) {
    return;
  }
  const kind = await vscode.window.showQuickPick(MEMORY_KINDS, { title: 'CodeKeep: Remember — kind', placeHolder: 'What kind of memory is it?' });
  if (!kind) {
    return;
  }
  const links = editor && editor.document.uri.scheme === 'file' ? await currentLinks(connection, editor) : { files: [], symbols: [] };
  const result = await connection.request<RememberResult>(Methods.remember, {
    content: content.trim(),
    kind: kind.label,
    scope,
    files: links.files,
    symbols: links.symbols,
    ...fileUri(editor),
  });
  if (result.action === 'REJECT' || !result.id) {
    void vscode.window.showWarningMessage(`CodeKeep did not store it: ${result.reason ?? 'rejected by the memory gate'}.`);
    return;
  }
  const linked = [...links.files, ...links.symbols].join(', ');
  void vscode.window.showInformationMessage(
    `CodeKeep remembered${team ? ' for the team' : ''} (${result.action.toLowerCase()}): "${oneLine(content, 60)}"${linked ? ` — linked to ${linked}` : ''}.`,
  );
}

/** The workspace-relative path of the editor's file and the id of the symbol under the cursor. */
async function currentLinks(connection: ServerConnection, editor: vscode.TextEditor): Promise<{ files: string[]; symbols: string[] }> {
  const folder = vscode.workspace.getWorkspaceFolder(editor.document.uri);
  const files = folder ? [vscode.workspace.asRelativePath(editor.document.uri, false)] : [];
  try {
    const position = editor.selection.start;
    const related = await connection.request<RelatedResult>(Methods.findRelated, {
      uri: editor.document.uri.toString(),
      position: { line: position.line, character: position.character },
    });
    return { files, symbols: related.symbol ? [related.symbol.id] : [] };
  } catch {
    return { files, symbols: [] }; // a file the index does not cover is still worth linking
  }
}

/** `{uri}` of the editor's file (routes the request to its folder), `{}` for other editors. */
function fileUri(editor: vscode.TextEditor | undefined): { uri?: string } {
  return editor?.document.uri.scheme === 'file' ? { uri: editor.document.uri.toString() } : {};
}

const FORGET: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Forget (delete this memory)' };
const NOT_THIS: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('thumbsdown'), tooltip: 'Not This (wrong for this query: rank it lower)' };
const CONFIRM: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('check'), tooltip: 'Confirm (true: act on it from now on)' };
const PROMOTE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('organization'), tooltip: 'Promote to Team (share it with every member)' };

/**
 * A button on a memory in the pick list: the request it sends, what to say after, and
 * (`applies`) which memories get it.
 */
interface MemoryAction {
  button: vscode.QuickInputButton;
  method: string;
  done: string;
  applies?: (memory: MemoryInfo) => boolean;
}

const PROMOTE_ACTION: MemoryAction = { button: PROMOTE, method: Methods.promote, done: 'shared with the team', applies: canPromote };
const RECALL_ACTIONS: MemoryAction[] = [
  { button: NOT_THIS, method: Methods.notThis, done: 'will rank lower' },
  { button: FORGET, method: Methods.forget, done: 'forgot' },
  PROMOTE_ACTION,
];
const REVIEW_ACTIONS: MemoryAction[] = [
  { button: CONFIRM, method: Methods.confirm, done: 'confirmed' },
  { button: FORGET, method: Methods.forget, done: 'forgot' },
];
const TEAM_ACTIONS: MemoryAction[] = [
  { button: NOT_THIS, method: Methods.notThis, done: 'will rank lower for the whole team' },
  { button: FORGET, method: Methods.forget, done: 'forgot for the whole team' },
];

export async function recall(connection: ServerConnection): Promise<void> {
  const query = await vscode.window.showInputBox({
    title: 'CodeKeep: Recall',
    prompt: 'What are you looking for?',
    value: vscode.window.activeTextEditor && !vscode.window.activeTextEditor.selection.isEmpty
      ? vscode.window.activeTextEditor.document.getText(vscode.window.activeTextEditor.selection).trim()
      : '',
    validateInput: (value) => (value.trim() ? undefined : 'Type a question or a few words.'),
  });
  if (!query) {
    return;
  }
  const result = await connection.request<{ memories: MemoryInfo[] }>(Methods.recall, {
    query: query.trim(),
    limit: 20,
    ...fileUri(vscode.window.activeTextEditor),
  });
  if (result.memories.length === 0) {
    void vscode.window.showInformationMessage(`CodeKeep: nothing remembered about "${query.trim()}".`);
    return;
  }
  const title = `CodeKeep: ${result.memories.length} memories for "${oneLine(query.trim(), 40)}"`;
  await showMemories(connection, title, 'Enter opens the linked file · trash = Forget · thumbs down = Not This',
    result.memories, RECALL_ACTIONS, `from Recall "${query.trim()}"`);
}

/**
 * What CodeKeep learned on its own (extracted from tasks, observed in summaries) and is
 * not acting on yet: confirm what is true, forget what is not.
 */
export async function reviewLearned(connection: ServerConnection): Promise<void> {
  const result = await connection.request<{ memories: MemoryInfo[] }>(Methods.list, {
    statuses: ['observed'],
    limit: 100,
    ...fileUri(vscode.window.activeTextEditor),
  });
  if (result.memories.length === 0) {
    void vscode.window.showInformationMessage('CodeKeep: nothing learned is waiting for confirmation.');
    return;
  }
  await showMemories(connection, `CodeKeep: ${result.memories.length} learned, not yet confirmed`,
    'check = Confirm (act on it) · trash = Forget', result.memories, REVIEW_ACTIONS, 'from Review Learned Memories');
}

/** The team's memories, newest first, each with who wrote or promoted it. */
export async function listTeamMemories(connection: ServerConnection): Promise<void> {
  const result = await connection.request<{ memories: MemoryInfo[] }>(Methods.list, {
    scope: 'team',
    limit: 200,
    ...fileUri(vscode.window.activeTextEditor),
  });
  if (result.memories.length === 0) {
    void vscode.window.showInformationMessage('CodeKeep: the team has no memories yet (Remember for the Team, Promote to Team).');
    return;
  }
  await showMemories(connection, `CodeKeep: ${result.memories.length} team memories`,
    'Enter opens the linked file · thumbs down = Not This · trash = Forget (for everyone)', result.memories, TEAM_ACTIONS,
    'from Team Memories');
}

/** Pick one of this project's (or the user's) memories and share it with the team. */
export async function promoteMemory(connection: ServerConnection): Promise<void> {
  const result = await connection.request<{ memories: MemoryInfo[] }>(Methods.list, {
    limit: 200,
    ...fileUri(vscode.window.activeTextEditor),
  });
  const local = result.memories.filter(canPromote);
  if (local.length === 0) {
    void vscode.window.showInformationMessage('CodeKeep: no project or user memory to promote (Remember one first).');
    return;
  }
  const chosen = await vscode.window.showQuickPick(local.map(memoryPickItem), {
    title: 'CodeKeep: Promote to Team',
    placeHolder: 'Which memory should every member of the team know?',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (chosen) {
    void vscode.window.showInformationMessage(await promote(connection, chosen.memory));
  }
}

async function promote(connection: ServerConnection, memory: MemoryInfo): Promise<string> {
  const result = await connection.request<RememberResult>(Methods.promote, { id: memory.id, to: 'team' });
  return promotedMessage(memory, result);
}

function showMemories(connection: ServerConnection, title: string, placeholder: string, memories: MemoryInfo[],
  actions: MemoryAction[], reason: string): Promise<void> {
  const pick = vscode.window.createQuickPick<MemoryPickItem & vscode.QuickPickItem>();
  pick.title = title;
  pick.placeholder = placeholder;
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = memories.map((memory) => ({
    ...memoryPickItem(memory),
    buttons: actions.filter((a) => !a.applies || a.applies(memory)).map((a) => a.button),
  }));
  return new Promise<void>((resolve) => {
    pick.onDidTriggerItemButton(async ({ button, item }) => {
      const action = actions.find((a) => a.button === button) ?? actions[0];
      try {
        if (action === PROMOTE_ACTION) { // the memory stays: it is still this project's
          void vscode.window.showInformationMessage(await promote(connection, item.memory));
          return;
        }
        const response = await connection.request<{ ok: boolean }>(action.method, { id: item.memory.id, reason });
        if (!response.ok) {
          throw new Error('the memory no longer exists or has changed');
        }
        pick.items = pick.items.filter((row) => row !== item);
        void vscode.window.setStatusBarMessage(`CodeKeep ${action.done}: ${oneLine(item.memory.content, 50)}`, 4000);
      } catch (error) {
        void vscode.window.showErrorMessage(`CodeKeep: ${(error as Error).message}`);
      }
    });
    pick.onDidAccept(async () => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      const file = chosen?.memory.files?.[0];
      if (file) {
        const folder = vscode.window.activeTextEditor
          ? vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri)
          : vscode.workspace.workspaceFolders?.[0];
        if (folder) {
          await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, file), { preview: true });
        }
      }
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve();
    });
    pick.show();
  });
}

/** Opens `<folder>/.codekeep/MEMORY.md`, the human-editable notes the server re-reads. */
export async function openMemoryNotes(): Promise<void> {
  const folder = await pickFolder('Open MEMORY.md of which folder?');
  if (!folder) {
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, '.codekeep', 'MEMORY.md');
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    const choice = await vscode.window.showInformationMessage(
      `${folder.name} has no .codekeep/MEMORY.md yet. Create it? CodeKeep reads notes you write there as project memory.`,
      'Create',
    );
    if (choice !== 'Create') {
      return;
    }
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('# Project memory\n\n'));
  }
  await vscode.window.showTextDocument(uri, { preview: false });
}
