import { describe, expect, it } from 'vitest';
import { retargetLensCommand } from '../../src/lensCommands';

describe('code lens commands', () => {
  it('points server lens commands at the commands that show results in VS Code', () => {
    expect(retargetLensCommand({ title: '3 references', command: 'codekeep.findReferences', arguments: [{ symbolId: 'a.py::f' }] })).toEqual({
      title: '3 references',
      command: 'codekeep.ui.findReferences',
      arguments: [{ symbolId: 'a.py::f' }],
    });
    expect(retargetLensCommand({ title: '≈ 1.2k tokens this week', command: 'codekeep.ledger.report' }).command).toBe('codekeep.ui.ledgerReport');
  });

  it('leaves other commands alone', () => {
    const command = { title: 'Run', command: 'editor.action.showReferences', arguments: [] };
    expect(retargetLensCommand(command)).toBe(command);
  });
});
