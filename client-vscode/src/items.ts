/**
 * Quick-pick rows for symbols and memories. Pure: the caller passes how to show a URI
 * as a workspace-relative path, so tests need no VS Code.
 */

import type { DocResult, MemoryInfo, SymbolInfo } from './protocol';

const KIND_ICONS: Record<string, string> = {
  function: 'symbol-function',
  method: 'symbol-method',
  class: 'symbol-class',
  interface: 'symbol-interface',
  struct: 'symbol-structure',
  enum: 'symbol-enum',
  trait: 'symbol-interface',
  type: 'symbol-type-parameter',
  constant: 'symbol-constant',
  variable: 'symbol-variable',
  module: 'symbol-module',
  namespace: 'symbol-namespace',
  macro: 'symbol-misc',
  field: 'symbol-field',
};

/** The codicon id for a CodeKeep symbol kind (unknown kinds get the generic icon). */
export function symbolKindIcon(kind: string): string {
  return KIND_ICONS[kind] ?? 'symbol-misc';
}

export interface SymbolPickItem {
  label: string;
  description: string;
  detail: string;
  symbol: SymbolInfo;
}

/**
 * `$(symbol-class) CodeMap` · `codekeep.analysis · class` · `codekeep/analysis/codemap.py:42  class CodeMap:`
 * Lines are shown 1-based, as editors and compilers print them.
 */
export function symbolPickItem(symbol: SymbolInfo, displayPath: (symbol: SymbolInfo) => string): SymbolPickItem {
  const where = `${displayPath(symbol)}:${symbol.selectionRange.start.line + 1}`;
  const descriptionParts = [symbol.container, symbol.kind].filter((part): part is string => Boolean(part));
  if (typeof symbol.score === 'number') {
    descriptionParts.push(`score ${symbol.score.toFixed(2)}`);
  }
  const signature = symbol.signature?.trim();
  return {
    label: `$(${symbolKindIcon(symbol.kind)}) ${symbol.name}`,
    description: descriptionParts.join(' · '),
    detail: signature ? `${where}  ${oneLine(signature, 120)}` : where,
    symbol,
  };
}

export interface MemoryPickItem {
  label: string;
  description: string;
  detail: string | undefined;
  memory: MemoryInfo;
}

/** A memory row: its content as the label, score and kind as the description, links as detail. */
export function memoryPickItem(memory: MemoryInfo): MemoryPickItem {
  const description = [
    typeof memory.score === 'number' ? `score ${memory.score.toFixed(2)}` : undefined,
    memory.kind,
    memory.scope && memory.scope !== 'project' ? memory.scope : undefined,
  ]
    .filter((part): part is string => Boolean(part))
    .join(' · ');
  const links = [...(memory.files ?? []), ...(memory.symbols ?? [])];
  return {
    label: oneLine(memory.content, 160),
    description,
    detail: links.length > 0 ? `$(link) ${links.join(', ')}` : undefined,
    memory,
  };
}

export interface DocPickItem {
  label: string;
  description: string;
  detail: string;
  doc: DocResult;
}

/**
 * `$(book) Serving in production` · `Deployment › Static files · docs/deploy.md:40-52` ·
 * the section's first words. The last heading is the label; the path above it and the
 * 1-based line span say where it is.
 */
export function docPickItem(doc: DocResult): DocPickItem {
  const parts = doc.heading.split(' › ');
  const where = `${doc.path}:${doc.startLine}-${doc.endLine}`;
  const above = parts.slice(0, -1).join(' › ');
  return {
    label: `$(book) ${parts[parts.length - 1] || doc.path}`,
    description: above ? `${above} · ${where}` : where,
    detail: oneLine(doc.text, 160),
    doc,
  };
}

/** Collapses whitespace and cuts to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
