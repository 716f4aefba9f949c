import { describe, expect, it } from 'vitest';
import { parseCommandLine, resolveServerCommand, type ResolveEnvironment } from '../../src/serverCommand';

function environment(executables: string[], over: Partial<ResolveEnvironment> = {}): ResolveEnvironment {
  return {
    pathVariable: '/usr/local/bin:/usr/bin',
    platform: 'linux',
    homeDir: '/home/dev',
    workspaceFolder: '/work/project',
    isExecutable: (file) => executables.includes(file),
    ...over,
  };
}

describe('command line parsing', () => {
  it('splits on whitespace and honours quotes and escapes', () => {
    expect(parseCommandLine('codekeep serve')).toEqual(['codekeep', 'serve']);
    expect(parseCommandLine('  "/opt/my tools/codekeep"   serve --tcp ')).toEqual(['/opt/my tools/codekeep', 'serve', '--tcp']);
    expect(parseCommandLine("python -c 'print(1)'")).toEqual(['python', '-c', 'print(1)']);
    expect(parseCommandLine('a\\ b "c\\"d" \'\'')).toEqual(['a b', 'c"d', '']);
  });

  it('rejects an unterminated quote instead of guessing', () => {
    expect(() => parseCommandLine('codekeep "serve')).toThrow(/unterminated/);
  });
});

describe('server command resolution', () => {
  const defaults = { serverCommand: 'codekeep serve', python: '' };

  it('finds the default command on PATH', () => {
    const launch = resolveServerCommand(defaults, environment(['/usr/bin/codekeep']));
    expect(launch).toEqual({ ok: true, command: '/usr/bin/codekeep', args: ['serve'], source: 'default' });
  });

  it('uses the python setting as `python -m codekeep serve`, with ${workspaceFolder} expanded', () => {
    const launch = resolveServerCommand(
      { serverCommand: 'codekeep serve', python: '${workspaceFolder}/.venv/bin/python' },
      environment(['/work/project/.venv/bin/python']),
    );
    expect(launch).toEqual({
      ok: true,
      command: '/work/project/.venv/bin/python',
      args: ['-m', 'codekeep', 'serve'],
      source: 'python',
    });
  });

  it('prefers a customised server command over the python setting', () => {
    const launch = resolveServerCommand(
      { serverCommand: '~/venv/bin/codekeep serve --log-level debug', python: '/usr/bin/python3' },
      environment(['/home/dev/venv/bin/codekeep', '/usr/bin/python3']),
    );
    expect(launch).toEqual({
      ok: true,
      command: '/home/dev/venv/bin/codekeep',
      args: ['serve', '--log-level', 'debug'],
      source: 'serverCommand',
    });
  });

  it('expands ${env:NAME} from the editor environment', () => {
    const launch = resolveServerCommand(
      { serverCommand: '${env:CK_HOME}/bin/codekeep serve', python: '' },
      environment(['/opt/ck/bin/codekeep']),
      { CK_HOME: '/opt/ck' },
    );
    expect(launch.ok && launch.command).toBe('/opt/ck/bin/codekeep');
  });

  it('explains how to fix it when codekeep is not on PATH', () => {
    const launch = resolveServerCommand(defaults, environment([]));
    expect(launch.ok).toBe(false);
    if (!launch.ok) {
      expect(launch.message).toContain('"codekeep" was not found on PATH');
      expect(launch.fix).toContain('codekeep.python');
      expect(launch.fix).toContain('codekeep.serverCommand');
    }
  });

  it('names the setting when a configured path does not exist', () => {
    const launch = resolveServerCommand({ serverCommand: 'codekeep serve', python: '/nope/python' }, environment([]));
    expect(launch.ok).toBe(false);
    if (!launch.ok) {
      expect(launch.message).toContain('"/nope/python" does not exist or is not executable');
      expect(launch.message).toContain('"codekeep.python"');
    }
  });

  it('fails clearly on ${workspaceFolder} without a folder and on bad quoting', () => {
    const noFolder = resolveServerCommand(
      { serverCommand: '${workspaceFolder}/codekeep serve', python: '' },
      environment([], { workspaceFolder: undefined }),
    );
    expect(noFolder.ok).toBe(false);
    const badQuote = resolveServerCommand({ serverCommand: '"codekeep serve', python: '' }, environment([]));
    expect(badQuote.ok).toBe(false);
    if (!badQuote.ok) {
      expect(badQuote.message).toContain('unterminated');
    }
  });

  it('treats an empty server command like the default', () => {
    const launch = resolveServerCommand({ serverCommand: '   ', python: '' }, environment(['/usr/local/bin/codekeep']));
    expect(launch).toMatchObject({ ok: true, command: '/usr/local/bin/codekeep', source: 'default' });
  });

  it('looks for .exe and .cmd on Windows PATH', () => {
    const launch = resolveServerCommand(
      defaults,
      environment(['C:\\py\\Scripts\\codekeep.exe'], { platform: 'win32', pathVariable: 'C:\\py\\Scripts' }),
    );
    expect(launch).toMatchObject({ ok: true, command: 'C:\\py\\Scripts\\codekeep.exe' });
  });
});
