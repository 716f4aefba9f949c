/**
 * The server's code lenses name server commands (`codekeep.findReferences`,
 * `codekeep.ledger.report`) so any editor can run them; in VS Code running them would
 * only return JSON. They are re-pointed at the extension's commands that show the result.
 */

export interface LensCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

const RETARGETED: Record<string, string> = {
  'codekeep.findReferences': 'codekeep.ui.findReferences',
  'codekeep.ledger.report': 'codekeep.ui.ledgerReport',
};

export function retargetLensCommand<T extends LensCommand>(command: T): T {
  const target = RETARGETED[command.command];
  return target ? { ...command, command: target } : command;
}
