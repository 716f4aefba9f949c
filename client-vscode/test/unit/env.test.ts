import { describe, expect, it } from 'vitest';
import { initializationOptions, serverEnvironment } from '../../src/env';

const settings = { model: ' qwen2.5-coder:7b ', baseUrl: 'http://127.0.0.1:11434/v1', apiKeyEnvVar: 'MY_KEY', exclude: ['**/gen/**'] };

describe('server environment', () => {
  it('passes model, base URL and the key read from the NAMED variable', () => {
    const env = serverEnvironment(settings, { PATH: '/bin', MY_KEY: 'sk-secret' });
    expect(env.CODEKEEP_MODEL).toBe('qwen2.5-coder:7b');
    expect(env.CODEKEEP_BASE_URL).toBe('http://127.0.0.1:11434/v1');
    expect(env.CODEKEEP_API_KEY).toBe('sk-secret');
    expect(env.PATH).toBe('/bin');
  });

  it('leaves unset values to the server and never invents a key', () => {
    const env = serverEnvironment({ ...settings, model: '', baseUrl: '' }, { PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin' });
  });

  it('does not modify the editor environment it starts from', () => {
    const base = { MY_KEY: 'k' };
    serverEnvironment(settings, base);
    expect(base).toEqual({ MY_KEY: 'k' });
  });

  it('sends settings but never a key in initializationOptions', () => {
    const options = initializationOptions(settings);
    expect(options).toEqual({ exclude: ['**/gen/**'], agent: { model: 'qwen2.5-coder:7b', baseUrl: 'http://127.0.0.1:11434/v1' } });
    // Unset settings are not sent: the server's project config file decides them.
    expect(initializationOptions({ ...settings, exclude: null, model: '', baseUrl: '' })).toEqual({ agent: {} });
    expect(JSON.stringify(options)).not.toContain('MY_KEY');
  });
});
