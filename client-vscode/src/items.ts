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
    memory.scope === 'team' && memory.author ? `by ${memory.author}` : undefined,
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

/** Scopes a memory can be promoted from (the team's own cannot be promoted again). */
const PROMOTABLE_SCOPES = new Set(['project', 'user']);
const PROMOTABLE_STATUSES = new Set(['active', 'confirmed_resolved']);

/** Whether "Promote to Team" applies to this memory (a live project or user memory). */
export function canPromote(memory: MemoryInfo): boolean {
  return PROMOTABLE_SCOPES.has(memory.scope ?? 'project') && PROMOTABLE_STATUSES.has(memory.status ?? 'active');
}

/** What a promotion did, in one line: a new team memory, or one the team already had. */
export function promotedMessage(memory: MemoryInfo, result: { action: string; id: string | null; reason?: string | null }): string {
  const what = `"${oneLine(memory.content, 60)}"`;
  if (!result.id || result.action === 'REJECT') {
    return `CodeKeep did not share ${what}: ${result.reason ?? 'rejected by the memory gate'}.`;
  }
  return result.action === 'PROMOTE'
    ? `CodeKeep shared ${what} with the team (${result.id}).`
    : `CodeKeep: the team already knew ${what} (${result.action.toLowerCase()} ${result.id}).`;
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
