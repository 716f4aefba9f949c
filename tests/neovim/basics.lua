-- Bad input gets one line, never a Lua error: commands before any server runs, in a
-- window without a file, with empty arguments, the agent without a model. Then
-- :checkhealth codekeep and :help codekeep (tags built by :helptags).
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

local COMMANDS = {
  'CodeKeepFind total_area', 'CodeKeepRefs total_area', 'CodeKeepRelated',
  'CodeKeepSearch tot', 'CodeKeepMap', 'CodeKeepRemember a fact', 'CodeKeepRecall a fact',
  'CodeKeepNotThis p1', 'CodeKeepForget p1', 'CodeKeepNotes', 'CodeKeepDocs deploy',
  'CodeKeepLedger',
  'CodeKeepBudget 1000', 'CodeKeepBudget 1000 daily', 'CodeKeepAgent do it',
  'CodeKeepReindex', 'CodeKeepRecord gpt-4o 100',
}

local function each(commands)
  local notes = {}
  for _, command in ipairs(commands) do
    notes[command] = H.notes_of(command, 1)
  end
  return notes
end

H.run(function()
  -- No server has started: every command says so.
  H.load_plugin()
  vim.cmd.help('codekeep-commands') -- the plugin built its help tags when it loaded
  R.help_on_load = vim.fn.expand('%:t') .. ':' .. vim.api.nvim_get_current_line()
  vim.cmd('helpclose')
  R.no_server = each(COMMANDS)
  R.cancel_idle = H.notes_of('CodeKeepAgentCancel', 1)
  vim.lsp.config('codekeep', { cmd = { assert(os.getenv('CK_CODEKEEP')), 'serve' } })
  vim.cmd('checkhealth codekeep') -- the executable's version without a server
  R.health_idle = H.text()
  vim.cmd('bwipeout!')

  -- With a server, no model configured.
  H.start()
  H.open('pkg/geometry.py')
  R.no_model = H.notes_of('CodeKeepAgent where is total_area?', 1)
  R.empty = each({ 'CodeKeepFind', 'CodeKeepSearch  ', 'CodeKeepRemember', 'CodeKeepRecall',
                   'CodeKeepAgent', 'CodeKeepMap many', 'CodeKeepDocs' })
  R.unknown_id = H.notes_of('CodeKeepForget p000000000000', 1)
  R.reindex = H.notes_of('CodeKeepReindex', 1)

  -- A window that shows no file.
  vim.cmd('enew')
  vim.bo.buftype = 'nofile'
  R.no_file = each({ 'CodeKeepRelated', 'CodeKeepRefs', 'CodeKeepNotThis', 'CodeKeepForget' })
  R.remember_without_file = H.notes_of('CodeKeepRemember scratch buffers link nothing', 1)
  -- A file outside the project: nothing to link, the request goes to the project.
  vim.cmd.edit(vim.fn.tempname() .. '.py')
  R.remember_outside = H.notes_of('CodeKeepRemember files elsewhere link nothing', 1)
  R.recall_outside = H.notes_of('CodeKeepRecall zebra migration schedule', 1)

  -- :checkhealth codekeep
  vim.cmd('checkhealth codekeep')
  R.health = H.text()
  vim.cmd('bwipeout!')

  -- :help codekeep, every tag of the file accepted by :helptags.
  local doc = vim.fs.joinpath(vim.fn.tempname(), 'doc')
  vim.fn.mkdir(doc, 'p')
  vim.fn.writefile(vim.fn.readfile(vim.fs.joinpath(H.editors, 'doc', 'codekeep.txt')),
    vim.fs.joinpath(doc, 'codekeep.txt'))
  vim.cmd.helptags(doc) -- raises E154 on a duplicate tag
  vim.opt.runtimepath:append(vim.fs.dirname(doc))
  R.tags = {}
  for _, line in ipairs(vim.fn.readfile(vim.fs.joinpath(doc, 'tags'))) do
    table.insert(R.tags, (line:match('^[^\t]+')))
  end
  R.help = {}
  for _, tag in ipairs(R.tags) do
    vim.cmd.help(tag)
    R.help[tag] = vim.fn.expand('%:t') .. ':' .. vim.api.nvim_get_current_line()
    vim.cmd('helpclose')
  end
end)
