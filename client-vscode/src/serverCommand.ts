/**
 * Settings -> the process that runs the language server. Pure (the file system and PATH
 * are passed in) so every branch — explicit command, python, PATH lookup, nothing found —
 * is pinned by unit tests, and a failure always carries a message that says how to fix it.
 */

import * as path from 'path';

export const DEFAULT_SERVER_COMMAND = 'codekeep serve';

export interface ServerSettings {
  serverCommand: string;
  python: string;
}

export interface ResolveEnvironment {
  /** The PATH variable of the extension host. */
  pathVariable: string;
  platform: NodeJS.Platform;
  homeDir: string;
  /** First workspace folder, for `${workspaceFolder}` (undefined when none is open). */
  workspaceFolder: string | undefined;
  /** True when `file` exists and can be executed. */
  isExecutable(file: string): boolean;
}

export type ServerLaunch =
  | { ok: true; command: string; args: string[]; source: 'serverCommand' | 'python' | 'default' }
  | { ok: false; message: string; fix: string };

/**
 * Splits a command line the way a POSIX shell would for simple cases: whitespace
 * separates words, single and double quotes group, backslash escapes outside single quotes.
 */
export function parseCommandLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) {
        quote = null;
      } else if (ch === '\\' && quote === '"' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) {
        current += line[++i];
      } else {
        current += ch;
      }
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) {
        words.push(current);
        current = '';
        inWord = false;
      }
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) {
    throw new Error(`unterminated ${quote} quote in "${line}"`);
  }
  if (inWord) {
    words.push(current);
  }
  return words;
}

/** Expands `${workspaceFolder}`, `${env:NAME}` and a leading `~`. */
export function expandVariables(word: string, env: ResolveEnvironment, variables: NodeJS.ProcessEnv): string {
  let out = word.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => variables[name] ?? '');
  if (out.includes('${workspaceFolder}')) {
    if (!env.workspaceFolder) {
      throw new Error('${workspaceFolder} is used but no folder is open');
    }
    out = out.split('${workspaceFolder}').join(env.workspaceFolder);
  }
  if (out === '~' || out.startsWith('~/')) {
    out = env.homeDir + out.slice(1);
  }
  return out;
}

/** Finds an executable the way the OS would: a path is checked as is, a bare name on PATH. */
export function findExecutable(name: string, env: ResolveEnvironment): string | undefined {
  const isPath = name.includes('/') || (env.platform === 'win32' && name.includes('\\'));
  if (isPath) {
    return env.isExecutable(name) ? name : undefined;
  }
  const separator = env.platform === 'win32' ? ';' : ':';
  const extensions = env.platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  for (const dir of env.pathVariable.split(separator)) {
    if (!dir) {
      continue;
    }
    for (const ext of extensions) {
      const candidate = (env.platform === 'win32' ? path.win32 : path.posix).join(dir, name + ext);
      if (env.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

const FIX =
  'Install CodeKeep into a Python environment (`pip install codekeep`), then either put its ' +
  '`codekeep` command on PATH, set "codekeep.python" to that environment\'s python, or set ' +
  '"codekeep.serverCommand" to the full command (e.g. "/path/to/venv/bin/codekeep serve").';

/**
 * Decides how to start the server:
 * 1. a `codekeep.serverCommand` the user changed wins;
 * 2. else `codekeep.python` runs `<python> -m codekeep serve`;
 * 3. else the default `codekeep serve` must be found on PATH.
 */
export function resolveServerCommand(
  settings: ServerSettings,
  env: ResolveEnvironment,
  variables: NodeJS.ProcessEnv = {},
): ServerLaunch {
  const commandLine = settings.serverCommand.trim();
  const python = settings.python.trim();
  const customCommand = commandLine !== '' && commandLine !== DEFAULT_SERVER_COMMAND;
  try {
    if (customCommand) {
      const words = parseCommandLine(commandLine).map((word) => expandVariables(word, env, variables));
      return launch(words, 'serverCommand', `"codekeep.serverCommand" is "${commandLine}"`, env);
    }
    if (python) {
      const interpreter = expandVariables(python, env, variables);
      return launch([interpreter, '-m', 'codekeep', 'serve'], 'python', `"codekeep.python" is "${python}"`, env);
    }
    return launch(parseCommandLine(DEFAULT_SERVER_COMMAND), 'default', 'the default command', env);
  } catch (error) {
    return { ok: false, message: `CodeKeep cannot start its server: ${(error as Error).message}.`, fix: FIX };
  }
}

function launch(
  words: string[],
  source: 'serverCommand' | 'python' | 'default',
  origin: string,
  env: ResolveEnvironment,
): ServerLaunch {
  if (words.length === 0) {
    return { ok: false, message: `CodeKeep cannot start its server: ${origin} is empty.`, fix: FIX };
  }
  const [program, ...args] = words;
  const resolved = findExecutable(program, env);
  if (!resolved) {
    const where = program.includes('/') ? 'does not exist or is not executable' : 'was not found on PATH';
    return {
      ok: false,
      message: `CodeKeep cannot start its server: "${program}" ${where} (${origin}).`,
      fix: FIX,
    };
  }
  return { ok: true, command: resolved, args, source };
}
