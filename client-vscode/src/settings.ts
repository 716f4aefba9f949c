/**
 * Reading the `codekeep.*` settings in one place, plus which changes need a server
 * restart (everything the server process is started with) and which apply live.
 */

import * as vscode from 'vscode';
import { nudgeDisplay, type NudgeDisplay } from './nudges';

export const SECTION = 'codekeep';

export interface ExtensionSettings {
  serverCommand: string;
  python: string;
  /** Empty when unset: the server's environment decides. */
  model: string;
  baseUrl: string;
  apiKeyEnvVar: string;
  taskBudget: number;
  /** Null when unset: the project's config file decides. */
  exclude: string[] | null;
  nudgeDisplay: NudgeDisplay;
}

export function readSettings(scope?: vscode.ConfigurationScope): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    serverCommand: config.get<string>('serverCommand', 'codekeep serve'),
    python: config.get<string>('python', ''),
    model: config.get<string | null>('agent.model') ?? '',
    baseUrl: config.get<string | null>('agent.baseUrl') ?? '',
    apiKeyEnvVar: config.get<string>('apiKeyEnvVar', 'OPENAI_API_KEY'),
    taskBudget: config.get<number>('taskBudget', 150000),
    exclude: config.get<string[] | null>('exclude') ?? null,
    nudgeDisplay: nudgeDisplay(config.get<string>('nudges.display')),
  };
}

/** Settings read only when the server process starts; changing one restarts it. */
// `agent.*` and `exclude` reach the running server through workspace/configuration; the
// environment (model, base URL, key) is only read at start, hence the restart.
const RESTART_KEYS = ['serverCommand', 'python', 'agent.model', 'agent.baseUrl', 'apiKeyEnvVar'];

export function needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  return RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}
