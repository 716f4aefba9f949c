import { describe, expect, it } from 'vitest';
import { formatSymbolId, parseSymbolId, symbolNameFromId } from '../../src/symbolId';

describe('symbol ids', () => {
  it('reads path, container, name and number', () => {
    expect(parseSymbolId('shop/inventory.py::Inventory.restock#2')).toEqual({
      path: 'shop/inventory.py',
      qual: 'Inventory.restock#2',
      name: 'restock',
      container: 'Inventory',
      number: 2,
    });
    expect(parseSymbolId('app.py::main')).toEqual({ path: 'app.py', qual: 'main', name: 'main', container: undefined, number: undefined });
    expect(parseSymbolId('src/a.ts::Outer.Inner.run')?.container).toBe('Outer.Inner');
  });

  it('formats what it parsed back to the same text', () => {
    for (const text of ['shop/inventory.py::Inventory.restock#2', 'app.py::main']) {
      const id = parseSymbolId(text);
      expect(id && formatSymbolId(id)).toBe(text);
    }
  });

  it('refuses text that is not an id', () => {
    for (const text of ['main', '::main', 'app.py::', '']) {
      expect(parseSymbolId(text)).toBeUndefined();
    }
  });

  it('names a symbol from its id for the References view title', () => {
    expect(symbolNameFromId('shop/inventory.py::Inventory.restock')).toBe('restock');
    expect(symbolNameFromId('shop/inventory.py::Inventory.restock#2')).toBe('restock');
    expect(symbolNameFromId('app.py::main')).toBe('main');
    expect(symbolNameFromId('not an id')).toBe('not an id');
  });
});
