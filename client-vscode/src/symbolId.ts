/**
 * The server's symbol ids, `path::Container.name#n` (see codekeep/common/symbol_id.py):
 * the one place the client reads them. `#n` (n >= 2) numbers later definitions with the
 * same qualified name in one file.
 */

export const SEPARATOR = '::';

export interface SymbolId {
  path: string;
  /** `Container.name`, plus `#n` when numbered. */
  qual: string;
  /** The last dotted part of the qualified name. */
  name: string;
  container: string | undefined;
  number: number | undefined;
}

/** Read an id; undefined when the text is not one. */
export function parseSymbolId(text: string): SymbolId | undefined {
  const at = text.indexOf(SEPARATOR);
  if (at <= 0 || at + SEPARATOR.length >= text.length) {
    return undefined;
  }
  const path = text.slice(0, at);
  const qual = text.slice(at + SEPARATOR.length);
  const numbered = /#(\d+)$/.exec(qual);
  const qualified = numbered ? qual.slice(0, numbered.index) : qual;
  const dot = qualified.lastIndexOf('.');
  return {
    path,
    qual,
    name: dot >= 0 ? qualified.slice(dot + 1) : qualified,
    container: dot >= 0 ? qualified.slice(0, dot) : undefined,
    number: numbered ? Number(numbered[1]) : undefined,
  };
}

export function formatSymbolId(id: Pick<SymbolId, 'path' | 'qual'>): string {
  return `${id.path}${SEPARATOR}${id.qual}`;
}

/** `shop/inventory.py::Inventory.restock#2` -> `restock` (for titles); other text as is. */
export function symbolNameFromId(text: string): string {
  return parseSymbolId(text)?.name ?? text;
}
