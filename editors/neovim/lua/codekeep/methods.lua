--- The server's methods the plugin uses, named once (as client-vscode/src/protocol.ts does
--- for the VS Code extension): a renamed method is a one-line change here.
--- tests/editors/test_client_methods.py checks every name against what `codekeep serve`
--- registers, and that no other Lua module spells a method out.
local M = {}

M.requests = {
  find_symbol = 'codekeep/findSymbol',
  find_references = 'codekeep/findReferences',
  find_related = 'codekeep/findRelated',
  search_symbols = 'codekeep/searchSymbols',
  repo_map = 'codekeep/repoMap',
  index_status = 'codekeep/indexStatus',
  reindex = 'codekeep/reindex',
  remember = 'codekeep/memory/remember',
  recall = 'codekeep/memory/recall',
  forget = 'codekeep/memory/forget',
  not_this = 'codekeep/memory/notThis',
  memory_list = 'codekeep/memory/list',
  promote = 'codekeep/memory/promote',
  notes = 'codekeep/memory/notes',
  ledger_report = 'codekeep/ledger/report',
  ledger_record = 'codekeep/ledger/record',
  ledger_budget = 'codekeep/ledger/budget',
  ledger_task = 'codekeep/ledger/task',
  agent_run = 'codekeep/agent/run',
  agent_model = 'codekeep/agent/model',
  docs_search = 'codekeep/docs/search',
  impact = 'codekeep/impact',
}

M.notifications = {
  nudge = 'codekeep/nudge',
  budget = 'codekeep/budget',
  ledger_changed = 'codekeep/ledgerChanged',
}

return M
