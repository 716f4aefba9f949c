-- The ledger from Neovim: task_id(), :CodeKeepBudget, budget crossings through
-- vim.notify and statusline(), :CodeKeepLedger [task|day|file].
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

H.run(function()
  H.load_plugin()
  local codekeep = require('codekeep')
  R.statusline_before = codekeep.statusline() -- no server has run yet
  H.start()
  R.statuslines = {} -- statusline() at every User CodeKeepStatus, from the start
  vim.api.nvim_create_autocmd('User', {
    pattern = 'CodeKeepStatus',
    callback = function() table.insert(R.statuslines, codekeep.statusline()) end,
  })
  H.open('pkg/geometry.py')
  H.wait('task id', 10000, function() return codekeep.task_id() ~= nil end)
  R.task = codekeep.task_id()
  R.statusline_ready = codekeep.statusline()

  R.budget_usage = H.note_of('CodeKeepBudget')
  R.budget_bad = H.note_of('CodeKeepBudget lots')
  R.budget_bad_scope = H.note_of('CodeKeepBudget 1000 weekly')
  R.budget_set = H.note_of('CodeKeepBudget 1k')
  R.statusline_budget = codekeep.statusline()

  -- Calls recorded without a task id land on the editor's task and cross its budget.
  local function record(input, output)
    return H.request('codekeep/ledger/record', {
      callType = 'read_code', model = 'gpt-4o', inputTokens = input, outputTokens = output,
      files = { [vim.uri_from_fname(H.root .. '/pkg/geometry.py')] = 1200 },
    })
  end
  local before = #H.notes
  R.recorded_task = record(800, 50).taskId
  H.wait('75 % notification', 10000, function() return #H.notes > before end)
  vim.wait(300, function() return false end, 20) -- the server's echo message, if any
  R.warn = vim.list_slice(H.notes, before + 1)
  R.statusline_warn = codekeep.statusline()
  before = #H.notes
  record(200, 0)
  H.wait('100 % notification', 10000, function() return #H.notes > before end)
  vim.wait(300, function() return false end, 20)
  R.over = vim.list_slice(H.notes, before + 1)
  R.statusline_over = codekeep.statusline()

  -- The report in a scratch buffer.
  vim.cmd('CodeKeepLedger')
  H.wait('ledger buffer', 10000, function()
    return vim.api.nvim_buf_get_name(0) == 'codekeep://ledger'
  end)
  R.ledger = H.lines()
  local function report(arg, header)
    vim.cmd('CodeKeepLedger ' .. arg)
    H.wait('ledger ' .. arg, 10000, function() return H.lines()[1] == header end)
    return H.lines()
  end
  R.ledger_file = report('file', 'CodeKeep ledger: task ' .. R.task .. ', by file')
  R.ledger_day = report('day', 'CodeKeep ledger: every day (UTC)')
  R.ledger_task = report('task', 'CodeKeep ledger: every task')
  R.ledger_bad = H.note_of('CodeKeepLedger week')

  R.daily = H.note_of('CodeKeepBudget 5000 daily')
  R.removed = H.note_of('CodeKeepBudget 0')
  R.statusline_daily = codekeep.statusline()

  -- A call made outside CodeKeep, counted on the editor's task.
  R.record_usage = H.note_of('CodeKeepRecord gpt-4o')
  R.record_bad_type = H.note_of('CodeKeepRecord gpt-4o 100 0 browsing')
  R.recorded = H.note_of('CodeKeepRecord gpt-4o 1.2k 30 read_code')
  H.wait('statusline after the record', 5000, function()
    return codekeep.statusline() == 'CodeKeep ✓ 2.28k/5k tok/day'
  end)
end)
