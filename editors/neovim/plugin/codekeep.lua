-- CodeKeep user commands (Neovim 0.11+); see :help codekeep.
--   code map   :CodeKeepFind {name}  :CodeKeepRefs [name]  :CodeKeepRelated
--              :CodeKeepSearch {query}  :CodeKeepMap [tokens]  :CodeKeepReindex
--              :CodeKeepImpact [range]
--   memory     :CodeKeepRemember {text}  :CodeKeepRecall {query}  :CodeKeepNotThis [id]
--              :CodeKeepForget [id]  :CodeKeepNotes
--   team       :CodeKeepRememberTeam {text}  :CodeKeepTeam  :CodeKeepPromote [id]
--   docs       :CodeKeepDocs {query}
--   ledger     :CodeKeepLedger [task|day|file|host|claude-code|codex]  :CodeKeepBudget {tokens} [daily]
--              :CodeKeepRecord {model} {input} [output] [call_type]
--   agent      :CodeKeepAgent {task}  :CodeKeepAgentCancel
if vim.g.loaded_codekeep then
  return
end
vim.g.loaded_codekeep = true

local core = require('codekeep')

-- :help codekeep without a manual :helptags, however the plugin was installed: build
-- doc/tags when it is missing or older than the help file (ignored by git).
local doc =
  vim.fs.joinpath(vim.fs.dirname(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))), 'doc')
if vim.fn.getftime(doc .. '/codekeep.txt') > vim.fn.getftime(doc .. '/tags') then
  pcall(vim.cmd.helptags, vim.fn.fnameescape(doc))
end

-- name, module, function, nargs, description; each loads its module on first use and
-- never shows a Lua error trace.
local COMMANDS = {
  { 'CodeKeepFind', 'codemap', 'find', '?', 'find a symbol by name' },
  {
    'CodeKeepRefs',
    'codemap',
    'refs',
    '?',
    'references of a name or of the symbol under the cursor',
  },
  {
    'CodeKeepRelated',
    'codemap',
    'related',
    0,
    'what the code under the cursor calls, is called by, relates to',
  },
  { 'CodeKeepSearch', 'codemap', 'search', '*', 'fuzzy symbol search' },
  { 'CodeKeepMap', 'codemap', 'map', '?', 'ranked repository map (optional token budget)' },
  { 'CodeKeepReindex', 'codemap', 'reindex', 0, 'bring the index up to date with the disk' },
  {
    'CodeKeepImpact',
    'codemap',
    'impact',
    '?',
    'what the diff (default HEAD vs disk) changes, its callers and tests',
  },
  {
    'CodeKeepRemember',
    'memory',
    'remember',
    '*',
    'remember a fact, linked to this file and symbol',
  },
  { 'CodeKeepRecall', 'memory', 'recall', '*', 'recall memories into a scratch buffer' },
  {
    'CodeKeepNotThis',
    'memory',
    'not_this',
    '?',
    'the memory under the cursor (or id) was wrong here',
  },
  { 'CodeKeepForget', 'memory', 'forget', '?', 'forget the memory under the cursor (or id)' },
  { 'CodeKeepNotes', 'memory', 'notes', 0, 'edit .codekeep/MEMORY.md' },
  { 'CodeKeepRememberTeam', 'memory', 'remember_team', '*', 'remember for the whole team' },
  { 'CodeKeepTeam', 'memory', 'team', 0, "the team's memories in a scratch buffer" },
  {
    'CodeKeepPromote',
    'memory',
    'promote',
    '?',
    'share the memory under the cursor (or id) with the team',
  },
  { 'CodeKeepDocs', 'docs', 'search', '*', "search the project's docs" },
  {
    'CodeKeepLedger',
    'ledger',
    'report',
    '?',
    'token ledger report',
    { 'task', 'day', 'file', 'host', 'claude-code', 'codex' },
  },
  {
    'CodeKeepBudget',
    'ledger',
    'budget',
    '*',
    "token budget of the editor's task, or the daily one",
    { 'daily' },
  },
  {
    'CodeKeepRecord',
    'ledger',
    'record',
    '*',
    'count a model call made outside CodeKeep',
    { 'read_code', 'generate_code', 'summarize', 'plan', 'tool', 'other' },
  },
  { 'CodeKeepAgent', 'agent', 'run', '*', 'run the agent on a task' },
  { 'CodeKeepAgentCancel', 'agent', 'cancel', 0, 'stop the running agent task' },
}

for _, spec in ipairs(COMMANDS) do
  local name, module, fn, nargs, desc, choices = unpack(spec)
  vim.api.nvim_create_user_command(
    name,
    core.guard(function(o)
      require('codekeep.' .. module)[fn](o.args)
    end),
    {
      nargs = nargs,
      desc = 'CodeKeep: ' .. desc,
      complete = choices and function()
        return choices
      end or nil,
    }
  )
end

-- Clicking a "N references" code lens runs this in Neovim (not on the server), so the
-- references land in the quickfix list.
vim.lsp.commands['codekeep.findReferences'] = core.guard(function(command_)
  require('codekeep.codemap').references((command_.arguments or {})[1] or vim.empty_dict())
end)

local group = vim.api.nvim_create_augroup('codekeep', { clear = true })
local function codekeep_client(event)
  local client = vim.lsp.get_client_by_id(event.data and event.data.client_id or -1)
  return client and client.name == 'codekeep' and client or nil
end
vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  callback = core.guard(function(event)
    local client = codekeep_client(event)
    if client then
      require('codekeep.status').on_attach(client)
    end
  end),
})
vim.api.nvim_create_autocmd('LspProgress', {
  group = group,
  callback = core.guard(function(event)
    local client = codekeep_client(event)
    if client and event.data.params then
      require('codekeep.status').on_progress(client, event.data.params)
    end
  end),
})
