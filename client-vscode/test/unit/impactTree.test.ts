import { describe, expect, it } from 'vitest';
import { impactChildren, impactMessage, impactRoots, impactRow, shortName } from '../../src/impactTree';
import type { ImpactResult } from '../../src/protocol';

// What `codekeep impact --json` answered for the CLI tests' shop tree (price changed,
// _tax changed, Cart removed), trimmed to the fields the tree reads.
const result: ImpactResult = {
  base: 'HEAD',
  head: 'worktree',
  files: ['shop/core.py'],
  symbols: [
    {
      id: 'shop/core.py::price',
      name: 'price',
      kind: 'function',
      path: 'shop/core.py',
      line: 1,
      change: 'changed',
      risk: ['public API'],
      callers: [
        { id: 'tests/test_api.py::test_checkout', path: 'tests/test_api.py', line: 4, depth: 3, via: ['shop/core.py::total', 'shop/api.py::checkout'], confidence: 'resolved' },
        { id: 'shop/core.py::total', path: 'shop/core.py', line: 9, depth: 1, via: [], confidence: 'resolved' },
        { id: 'shop/api.py::checkout', path: 'shop/api.py', line: 4, depth: 2, via: ['shop/core.py::total'], confidence: 'resolved' },
        { id: 'tests/conftest.py::make', path: 'tests/conftest.py', line: 2, depth: 1, via: [], confidence: 'name' },
      ],
      tests: { files: ['tests/conftest.py', 'tests/test_api.py'], functions: ['tests/test_api.py::test_checkout'] },
    },
    {
      id: 'shop/core.py::Cart#2',
      name: 'Cart',
      kind: 'class',
      path: 'shop/core.py',
      line: 12,
      change: 'removed',
      risk: ['public API'],
      callers: [],
      tests: { files: [], functions: [] },
    },
  ],
};

describe('the impact tree', () => {
  it('puts each changed symbol at the top with its change, place and risk', () => {
    const [price, cart] = impactRoots(result).map(impactRow);
    expect(price).toMatchObject({
      label: 'price',
      description: 'changed · shop/core.py:1 · public API',
      icon: 'diff-modified',
      expandable: true,
      target: { path: 'shop/core.py', line: 0 },
    });
    expect(cart.label).toBe('Cart');
    expect(cart.icon).toBe('diff-removed');
    expect(cart.expandable).toBe(false);
    expect(cart.target).toBeUndefined(); // gone from the file: nothing to open
  });

  it('lists callers nearest first with the chain that reaches each, and marks name matches', () => {
    const [callers, tests] = impactChildren(impactRoots(result)[0]);
    expect([impactRow(callers).label, impactRow(callers).description]).toEqual(['Callers', '4']);
    expect([impactRow(tests).label, impactRow(tests).description]).toEqual(['Tests', '2']);
    const rows = impactChildren(callers).map(impactRow);
    expect(rows.map((row) => row.label)).toEqual(['total', 'make', 'checkout', 'test_checkout']);
    expect(rows[3].tooltip).toContain('reached by: total → checkout → test_checkout');
    expect(rows[3].target).toEqual({ path: 'tests/test_api.py', line: 3 });
    expect(rows[1].description).toBe('depth 1 · by name · tests/conftest.py:2');
    expect(rows[1].icon).toBe('question');
  });

  it('lists the test functions, then the test files reached outside any test function', () => {
    const tests = impactChildren(impactRoots(result)[0])[1];
    const rows = impactChildren(tests).map(impactRow);
    expect(rows.map((row) => [row.label, row.description])).toEqual([
      ['test_checkout', 'tests/test_api.py:4'],
      ['tests/conftest.py', 'test file'],
    ]);
    expect(rows[1].target).toEqual({ path: 'tests/conftest.py', line: 0 });
  });

  it('says what an empty answer means', () => {
    expect(impactMessage(result)).toBe('2 changed symbols in 1 files (HEAD → worktree)');
    expect(impactMessage({ ...result, symbols: [] })).toBe('1 changed files, no definitions changed (HEAD → worktree).');
    expect(impactMessage({ ...result, symbols: [], files: [] })).toBe('No changes (HEAD → worktree).');
  });

  it('shortens ids to Container.name without the duplicate number', () => {
    expect(shortName('pkg/a.py::Store.save')).toBe('Store.save');
    expect(shortName('pkg/a.py::Cart#2')).toBe('Cart');
  });
});
