/**
 * The environment and initialization options the server process starts with. Pure.
 * The API key is read from the variable the user NAMED (`codekeep.apiKeyEnvVar`) in the
 * editor's own environment and handed over as `CODEKEEP_API_KEY`; it is never stored in
 * settings and never written to the log.
 */

export interface ServerEnvSettings {
  model: string;
  baseUrl: string;
  apiKeyEnvVar: string;
  exclude: string[] | null;
}

export function serverEnvironment(settings: ServerEnvSettings, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (settings.model.trim()) {
    env.CODEKEEP_MODEL = settings.model.trim();
  }
  if (settings.baseUrl.trim()) {
    env.CODEKEEP_BASE_URL = settings.baseUrl.trim();
  }
  const keyName = settings.apiKeyEnvVar.trim();
  const key = keyName ? base[keyName] : undefined;
  if (key) {
    env.CODEKEEP_API_KEY = key;
  }
  return env;
}

/**
 * The `codekeep` settings object the server reads as its editor layer (before it asks
 * with workspace/configuration). Only server settings: `taskBudget` is the extension's own.
 */
export function initializationOptions(settings: ServerEnvSettings): Record<string, unknown> {
  return {
    ...(settings.exclude ? { exclude: settings.exclude } : {}),
    agent: {
      ...(settings.model.trim() ? { model: settings.model.trim() } : {}),
      ...(settings.baseUrl.trim() ? { baseUrl: settings.baseUrl.trim() } : {}),
    },
  };
}
