/**
 * The "Impact" tree of Show Impact of Changes: each symbol the diff adds, changes or
 * removes, under it its callers (nearest first, with the chain that reaches each) and
 * the tests that reach it. Pure (no `vscode` import) so the unit tests can check what
 * every row says and where it leads; commands/impact.ts draws it.
 */

import type { ImpactCaller, ImpactResult, ImpactSymbol } from './protocol';

export type ImpactNode =
  | { kind: 'symbol'; symbol: ImpactSymbol }
  | { kind: 'callers'; symbol: ImpactSymbol }
  | { kind: 'tests'; symbol: ImpactSymbol }
  | { kind: 'caller'; caller: ImpactCaller }
  | { kind: 'test'; path: string; line?: number; name?: string };

/** What a row shows: label, description, tooltip, codicon, whether it has children and
 * the place it opens (folder-relative path, 0-based line). */
export interface ImpactRow {
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  expandable: boolean;
  target?: { path: string; line: number };
}

const CHANGE_ICONS: Record<ImpactSymbol['change'], string> = {
  added: 'diff-added',
  changed: 'diff-modified',
  removed: 'diff-removed',
};

/** The part of an id after `path::`: `Container.name`. */
export function shortName(id: string): string {
  const at = id.indexOf('::');
  return (at < 0 ? id : id.slice(at + 2)).replace(/#\d+$/, '');
}

export function impactRoots(result: ImpactResult): ImpactNode[] {
  return result.symbols.map((symbol) => ({ kind: 'symbol', symbol }));
}

export function impactChildren(node: ImpactNode): ImpactNode[] {
  switch (node.kind) {
    case 'symbol': {
      const groups: ImpactNode[] = [];
      if (node.symbol.callers.length > 0) {
        groups.push({ kind: 'callers', symbol: node.symbol });
      }
      if (node.symbol.tests.files.length > 0) {
        groups.push({ kind: 'tests', symbol: node.symbol });
      }
      return groups;
    }
    case 'callers':
      return [...node.symbol.callers]
        .sort((a, b) => a.depth - b.depth)
        .map((caller) => ({ kind: 'caller', caller }));
    case 'tests':
      return testNodes(node.symbol);
    default:
      return [];
  }
}

/** Each test function that reaches the symbol, then each test file that reaches it only
 * through code outside a test function (a module-level call, a fixture). */
function testNodes(symbol: ImpactSymbol): ImpactNode[] {
  const callers = new Map(symbol.callers.map((caller) => [caller.id, caller]));
  const functions: ImpactNode[] = symbol.tests.functions.map((id) => ({
    kind: 'test',
    path: id.split('::')[0],
    line: callers.get(id)?.line,
    name: shortName(id),
  }));
  const covered = new Set(symbol.tests.functions.map((id) => id.split('::')[0]));
  const files: ImpactNode[] = symbol.tests.files.filter((path) => !covered.has(path)).map((path) => ({ kind: 'test', path }));
  return [...functions, ...files];
}

export function impactRow(node: ImpactNode): ImpactRow {
  switch (node.kind) {
    case 'symbol': {
      const { symbol } = node;
      const risk = symbol.risk.length > 0 ? ` · ${symbol.risk.join(', ')}` : '';
      return {
        label: shortName(symbol.id),
        description: `${symbol.change} · ${symbol.path}:${symbol.line}${risk}`,
        tooltip: `${symbol.change} ${symbol.kind} ${symbol.id}\n${symbol.callers.length} callers, ${symbol.tests.files.length} test files${risk ? `\nrisk: ${symbol.risk.join(', ')}` : ''}`,
        icon: CHANGE_ICONS[symbol.change],
        expandable: symbol.callers.length > 0 || symbol.tests.files.length > 0,
        // a removed symbol is no longer in the file: its old line leads nowhere useful
        target: symbol.change === 'removed' ? undefined : { path: symbol.path, line: symbol.line - 1 },
      };
    }
    case 'callers':
      return {
        label: 'Callers',
        description: String(node.symbol.callers.length),
        tooltip: 'Who calls or uses it, nearest first (depth 1: directly)',
        icon: 'call-incoming',
        expandable: true,
      };
    case 'tests':
      return {
        label: 'Tests',
        description: String(node.symbol.tests.files.length),
        tooltip: 'The test functions and files that reach it',
        icon: 'beaker',
        expandable: true,
      };
    case 'caller': {
      const { caller } = node;
      const chain = [...caller.via, caller.id].map(shortName).join(' → ');
      const guess = caller.confidence === 'name' ? ' · by name' : '';
      return {
        label: shortName(caller.id),
        description: `depth ${caller.depth}${guess} · ${caller.path}:${caller.line}`,
        tooltip: `${caller.id}\nreached by: ${chain}${guess ? '\nmatched by name only (receiver of unknown type): check it' : ''}`,
        icon: caller.confidence === 'name' ? 'question' : 'symbol-function',
        expandable: false,
        target: { path: caller.path, line: caller.line - 1 },
      };
    }
    case 'test':
      return {
        label: node.name ?? node.path,
        description: node.name ? `${node.path}${node.line ? `:${node.line}` : ''}` : 'test file',
        tooltip: node.name ? `${node.path}::${node.name}` : node.path,
        icon: 'beaker',
        expandable: false,
        target: { path: node.path, line: node.line ? node.line - 1 : 0 },
      };
  }
}

/** The message above an empty tree. */
export function impactMessage(result: ImpactResult): string {
  const range = `${result.base} → ${result.head}`;
  if (result.symbols.length === 0) {
    return result.files.length === 0 ? `No changes (${range}).` : `${result.files.length} changed files, no definitions changed (${range}).`;
  }
  return `${result.symbols.length} changed symbols in ${result.files.length} files (${range})`;
}
