/** Index status from one or several workspace folders, as one status bar line. Pure. */

import type { IndexStatus } from './protocol';

/** The server answers one status, or one per folder (`{folders: [...]}`) in multi-root. */
export function statusesOf(result: unknown): IndexStatus[] {
  if (result && typeof result === 'object' && Array.isArray((result as { folders?: unknown }).folders)) {
    return (result as { folders: IndexStatus[] }).folders;
  }
  return [result as IndexStatus];
}

/** Sums the status of several workspace folders into one line. */
export function mergeStatuses(statuses: IndexStatus[]): IndexStatus {
  const merged: IndexStatus = { files: 0, symbols: 0, references: 0, languages: {}, pending: 0, ready: true, indexed: 0, toIndex: 0 };
  for (const status of statuses) {
    merged.indexed = (merged.indexed ?? 0) + (status.indexed ?? 0);
    merged.toIndex = (merged.toIndex ?? 0) + (status.toIndex ?? 0);
    merged.files += status.files;
    merged.symbols += status.symbols;
    merged.references += status.references;
    merged.pending += status.pending;
    merged.ready &&= status.ready;
    for (const [language, files] of Object.entries(status.languages ?? {})) {
      merged.languages[language] = (merged.languages[language] ?? 0) + files;
    }
  }
  merged.ready &&= statuses.length > 0;
  return merged;
}
