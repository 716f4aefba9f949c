import { describe, expect, it } from 'vitest';
import { retargetLensCommand, symbolNameFromId } from '../../src/lensCommands';

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

  it('names a symbol from its id for the References view title', () => {
    expect(symbolNameFromId('shop/inventory.py::Inventory.restock')).toBe('restock');
    expect(symbolNameFromId('shop/inventory.py::Inventory.restock#2')).toBe('restock');
    expect(symbolNameFromId('app.py::main')).toBe('main');
  });
});
