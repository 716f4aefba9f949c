import { describe, expect, it } from 'vitest';
import { canPromote, docPickItem, memoryPickItem, oneLine, promotedMessage, symbolKindIcon, symbolPickItem } from '../../src/items';
import type { SymbolInfo } from '../../src/protocol';

const symbol = (over: Partial<SymbolInfo> = {}): SymbolInfo => ({
  id: 'pkg/store.py::Store.save',
  name: 'save',
  kind: 'method',
  uri: 'file:///w/pkg/store.py',
  range: { start: { line: 41, character: 4 }, end: { line: 50, character: 0 } },
  selectionRange: { start: { line: 41, character: 8 }, end: { line: 41, character: 12 } },
  signature: 'def save(self, item: Item) -> None:',
  container: 'Store',
  language: 'python',
  ...over,
});

describe('symbol quick pick items', () => {
  it('shows icon and name, container and kind, and the 1-based line with the signature', () => {
    const item = symbolPickItem(symbol(), () => 'pkg/store.py');
    expect(item.label).toBe('$(symbol-method) save');
    expect(item.description).toBe('Store · method');
    expect(item.detail).toBe('pkg/store.py:42  def save(self, item: Item) -> None:');
    expect(item.symbol.id).toBe('pkg/store.py::Store.save');
  });

  it('adds the fuzzy score for search results and copes with no container or signature', () => {
    const item = symbolPickItem(symbol({ container: null, signature: null, kind: 'function', score: 0.8712 }), () => 'a.py');
    expect(item.description).toBe('function · score 0.87');
    expect(item.detail).toBe('a.py:42');
  });

  it('maps every CodeKeep kind to a codicon and unknown kinds to a generic one', () => {
    for (const kind of ['function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'type', 'constant', 'variable', 'module', 'namespace', 'macro', 'field']) {
      expect(symbolKindIcon(kind)).toMatch(/^symbol-/);
    }
    expect(symbolKindIcon('class')).toBe('symbol-class');
    expect(symbolKindIcon('struct')).toBe('symbol-structure');
    expect(symbolKindIcon('gizmo')).toBe('symbol-misc');
  });
});

describe('memory quick pick items', () => {
  it('shows the content, the score and kind, and the linked files and symbols', () => {
    const item = memoryPickItem({
      id: 'm1',
      content: 'The ledger flushes\n every 500 ms',
      kind: 'fact',
      score: 0.912,
      scope: 'project',
      files: ['codekeep/ledger/store.py'],
      symbols: ['codekeep/ledger/store.py::Ledger.flush'],
    });
    expect(item.label).toBe('The ledger flushes every 500 ms');
    expect(item.description).toBe('score 0.91 · fact');
    expect(item.detail).toBe('$(link) codekeep/ledger/store.py, codekeep/ledger/store.py::Ledger.flush');
  });

  it('mentions a non-project scope and leaves detail empty without links', () => {
    const item = memoryPickItem({ id: 'm2', content: 'Prefers tabs', kind: 'preference', scope: 'user' });
    expect(item.description).toBe('preference · user');
    expect(item.detail).toBeUndefined();
  });

  it('cuts long content to one line with an ellipsis', () => {
    expect(oneLine('a'.repeat(300), 10)).toBe('aaaaaaaaa…');
    expect(oneLine('  a \n\t b ', 10)).toBe('a b');
  });
});

describe('doc quick pick items', () => {
  const doc = {
    path: 'docs/deploy.md',
    uri: 'file:///w/docs/deploy.md',
    heading: 'Deployment › Static files › Serving in production',
    startLine: 40,
    endLine: 52,
    text: 'Put the files\nbehind a   CDN.',
    score: 0.0164,
  };

  it('labels a section by its own heading and says where it sits and what it says', () => {
    const item = docPickItem(doc);
    expect(item.label).toBe('$(book) Serving in production');
    expect(item.description).toBe('Deployment › Static files · docs/deploy.md:40-52');
    expect(item.detail).toBe('Put the files behind a CDN.');
    expect(item.doc).toBe(doc);
  });

  it('shows only the place for a section headed by the page itself', () => {
    const item = docPickItem({ ...doc, heading: 'NOTES.txt', startLine: 1, endLine: 3 });
    expect(item.label).toBe('$(book) NOTES.txt');
    expect(item.description).toBe('docs/deploy.md:1-3');
  });
});

describe('team memories', () => {
  it('labels a team memory with its scope and who wrote it', () => {
    const item = memoryPickItem({ id: 'g1', content: 'staging deploys need the VPN', kind: 'fact', score: 0.5, scope: 'team', author: 'alice' });
    expect(item.description).toBe('score 0.50 · fact · team · by alice');
  });

  it('offers Promote to Team only on live project and user memories', () => {
    expect(canPromote({ id: 'p1', content: 'x', scope: 'project', status: 'active' })).toBe(true);
    expect(canPromote({ id: 'u1', content: 'x', scope: 'user' })).toBe(true);
    expect(canPromote({ id: 'g1', content: 'x', scope: 'team', status: 'active' })).toBe(false);
    expect(canPromote({ id: 't1', content: 'x', scope: 'task' })).toBe(false);
    expect(canPromote({ id: 'p2', content: 'x', scope: 'project', status: 'observed' })).toBe(false);
  });

  it('says what a promotion did: shared, already known, or refused with the reason', () => {
    const memory = { id: 'p1', content: 'the flaky test is fixed by clearing the cache' };
    expect(promotedMessage(memory, { action: 'PROMOTE', id: 'g9' })).toBe(
      'CodeKeep shared "the flaky test is fixed by clearing the cache" with the team (g9).');
    expect(promotedMessage(memory, { action: 'REINFORCE', id: 'g9', reason: 'same content seen again' })).toBe(
      'CodeKeep: the team already knew "the flaky test is fixed by clearing the cache" (reinforce g9).');
    expect(promotedMessage(memory, { action: 'REJECT', id: null, reason: 'rejected: contains a private key' })).toBe(
      'CodeKeep did not share "the flaky test is fixed by clearing the cache": rejected: contains a private key.');
  });
});
