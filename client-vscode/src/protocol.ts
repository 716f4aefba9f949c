/**
 * The wire contract with `codekeep serve` (docs/server.md), in one place so a
 * renamed method or field is a one-line change. Pure types: no `vscode` import, so the
 * unit tests can load every module that depends on them.
 */

export const Methods = {
  findSymbol: 'codekeep/findSymbol',
  findReferences: 'codekeep/findReferences',
  findRelated: 'codekeep/findRelated',
  searchSymbols: 'codekeep/searchSymbols',
  repoMap: 'codekeep/repoMap',
  indexStatus: 'codekeep/indexStatus',
  reindex: 'codekeep/reindex',
  remember: 'codekeep/memory/remember',
  recall: 'codekeep/memory/recall',
  forget: 'codekeep/memory/forget',
  notThis: 'codekeep/memory/notThis',
  confirm: 'codekeep/memory/confirm',
  list: 'codekeep/memory/list',
  promote: 'codekeep/memory/promote',
  ledgerReport: 'codekeep/ledger/report',
  ledgerRecord: 'codekeep/ledger/record',
  ledgerBudget: 'codekeep/ledger/budget',
  agentRun: 'codekeep/agent/run',
  docsSearch: 'codekeep/docs/search',
  impact: 'codekeep/impact',
} as const;

export const Notifications = {
  nudge: 'codekeep/nudge',
  budget: 'codekeep/budget',
  /** Another process (a Claude Code hook, an import) wrote to a folder's ledger. */
  ledgerChanged: 'codekeep/ledgerChanged',
} as const;

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface SymbolInfo {
  id: string;
  name: string;
  kind: string;
  uri: string;
  path?: string;
  range: Range;
  selectionRange: Range;
  signature?: string | null;
  container?: string | null;
  language?: string;
  score?: number;
}

export interface ReferenceInfo {
  uri: string;
  path?: string;
  range: Range;
  symbolId?: string | null;
  confidence: 'resolved' | 'name' | string;
}

export interface FindSymbolResult {
  symbols: SymbolInfo[];
}

export interface FindReferencesResult {
  references: ReferenceInfo[];
  total: number;
}

export interface RelatedResult {
  symbol: SymbolInfo | null;
  calls: SymbolInfo[];
  calledBy: SymbolInfo[];
  related: SymbolInfo[];
}

/** `codekeep/impact`: what `codekeep impact --json` prints; paths relative to the folder, lines 1-based. */
export interface ImpactResult {
  base: string;
  head: string;
  files: string[];
  symbols: ImpactSymbol[];
}

export interface ImpactSymbol {
  id: string;
  name: string;
  kind: string;
  path: string;
  line: number;
  change: 'added' | 'changed' | 'removed';
  risk: string[];
  callers: ImpactCaller[];
  tests: { files: string[]; functions: string[] };
}

export interface ImpactCaller {
  id: string;
  path: string;
  line: number;
  depth: number;
  /** The chain from the changed symbol to this caller, both left out. */
  via: string[];
  confidence: 'resolved' | 'name';
}

export interface RepoMapResult {
  text: string;
  tokens: number;
}

export interface IndexStatus {
  files: number;
  symbols: number;
  references: number;
  languages: Record<string, number>;
  pending: number;
  ready: boolean;
  /** Files the running background index has done / has to do (per folder). */
  indexed?: number;
  toIndex?: number;
}

/** One section of the project's docs; lines are 1-based and inclusive. */
export interface DocResult {
  path: string;
  uri: string;
  heading: string;
  startLine: number;
  endLine: number;
  text: string;
  score: number;
}

export interface DocsSearchResult {
  results: DocResult[];
  reason?: string;
}

export interface MemoryInfo {
  id: string;
  content: string;
  kind?: string;
  key?: string | null;
  score?: number;
  files?: string[];
  symbols?: string[];
  importance?: number;
  scope?: string;
  status?: string;
  /** Team memories: the member who wrote or promoted it. */
  author?: string | null;
  [extra: string]: unknown;
}

export interface RememberResult {
  id: string | null;
  action: string;
  reason?: string | null;
}

/** One row of the ledger report grouped by call type. */
export interface LedgerRow {
  key: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Percentage (0–100) of all tokens. */
  share: number;
  costUsd?: number;
  /** Calls of a model the price table does not know: `costUsd` leaves them out. */
  unpricedCalls: number;
}

/** One agent host's calls (`claude-code`, `codex`, `codekeep`). */
export interface LedgerHostRow {
  host: string;
  calls: number;
  tokens: number;
  costUsd: number;
  unpricedCalls: number;
}

export interface LedgerFileRow {
  path: string;
  tokens: number;
}

export interface BudgetState {
  /** Which budget this is: the task's own, or the daily one when the task has none. */
  scope?: 'task' | 'daily';
  taskId: string | null;
  used: number;
  limit: number | null;
  ratio: number | null;
}

/** Input tokens that went to what the prompts carried besides files (system, tools, conversation). */
export interface LedgerOverheadRow {
  bucket: string;
  label: string;
  tokens: number;
}

/** A file read more than once (in a task, or across the last tasks), with a cheaper read. */
export interface LedgerReread {
  path: string;
  reads: number;
  tasks: number;
  tokens: number;
  /** One line, e.g. "`sessions.py` read 4× (38k tokens) — `find_symbol Session.send` is 1.2k". */
  text: string;
  suggestion: { query: string; tokens: number; lines: number } | null;
}

export interface LedgerReport {
  rows: LedgerRow[];
  byFile: LedgerFileRow[];
  overhead: LedgerOverheadRow[];
  rereads: LedgerReread[];
  /** "task" (re-reads within the task) or "recent" (across the last tasks). */
  rereadScope: string;
  /** Report warnings, e.g. summaries above 20 % of a task's spend. */
  warnings: string[];
  total: { calls: number; inputTokens: number; outputTokens: number; costUsd?: number; unpricedCalls: number };
  budget: BudgetState | null;
  /** Calls per agent host; the extension asks for today's, across all tasks. */
  hosts: LedgerHostRow[];
  /** Requests without an answer, e.g. "3 failed connections" ('' when none). */
  errors: string;
}

export interface NudgeParams {
  taskId: string | null;
  type: string;
  text: string;
}

export interface BudgetParams {
  taskId: string | null;
  used: number;
  limit: number;
  ratio: number;
  /** `team`: the whole team's spend today against the team's daily budget. */
  scope?: 'task' | 'daily' | 'team';
}

/** One tool call of an agent task, in the order the agent made them. */
export interface AgentToolCall {
  name: string;
  /** cut_off: the model's reply stopped at its output limit, so the call was not run. */
  outcome: 'ok' | 'cached' | 'refused' | 'error' | 'cut_off';
  durationMs: number;
  /** Workspace-relative paths the call's result is about. */
  files: string[];
}

export interface AgentRunResult {
  taskId: string;
  answer: string;
  iterations: number;
  tokens: number;
  toolCalls: AgentToolCall[];
  phase?: string;
  /** false: the answer is not a complete one (cut off, empty, refused). */
  finished?: boolean;
  stopReason?: string;
  nudges?: { type: string; text: string }[];
}
