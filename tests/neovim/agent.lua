-- The agent from Neovim against the scripted OpenAI-compatible model on 127.0.0.1:
-- :CodeKeepAgent with $/progress and nudges in its buffer, budget crossings, a second run
-- refused while one runs, :CodeKeepAgentCancel, and a server that dies mid-task.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

local function agent_buffer_has(text)
  return function()
    local buf = vim.fn.bufnr('codekeep://agent')
    return buf ~= -1 and H.text(buf):find(text, 1, true) ~= nil
  end
end

H.run(function()
  -- memory's own model calls (summaries, extraction) off: the script answers the agent only
  H.start({ agent = { model = 'scripted-model', baseUrl = assert(os.getenv('CK_MODEL_URL')),
                      apiKey = 'test' },
            memory = { modelSummaries = false } },
          { task_budget = 1000, agent_capability = 'explore' })
  local codekeep = require('codekeep')
  local geometry = H.open('pkg/geometry.py')
  H.wait('task budget', 10000, function() return codekeep.statusline():find('0/1k tok') end)
  R.statusline_start = codekeep.statusline()
  R.empty = H.note_of('CodeKeepAgent')
  R.task = codekeep.task_id()

  -- 1. A task that calls one tool, then answers.
  local first = #H.notes
  vim.cmd('CodeKeepAgent Where is total_area defined?')
  H.wait('answer', 30000, agent_buffer_has('## Answer'))
  H.wait('done message', 5000, function()
    return H.notes[#H.notes].message:find('CodeKeep agent: done', 1, true) ~= nil
  end)
  R.run_notes = vim.list_slice(H.notes, first + 1)
  R.buffer = H.lines(vim.fn.bufnr('codekeep://agent'))
  R.statusline_after = codekeep.statusline()
  R.task_after = codekeep.task_id()
  R.recorded_after_run = H.request('codekeep/ledger/record', -- the run closed the task
    { callType = 'tool', model = 'm', inputTokens = 0, outputTokens = 0 }).taskId

  -- 2. A slow task: a second one is refused, the statusline follows it, cancel stops it.
  vim.cmd.buffer(geometry)
  vim.cmd('CodeKeepAgent Think about it for a long time')
  H.wait('slow task asked the model', 10000, function()
    return codekeep.statusline():find('agent step 1/24', 1, true) ~= nil
  end)
  R.statusline_running = codekeep.statusline()
  R.second = H.note_of('CodeKeepAgent And another one')
  R.cancel = H.note_of('CodeKeepAgentCancel')
  R.cancelled_buffer = H.lines(vim.fn.bufnr('codekeep://agent'))
  R.cancel_again = H.note_of('CodeKeepAgentCancel')

  -- 3. The server is fine after a cancel; with nudges = false they stay in the buffer.
  codekeep.options.nudges = false
  local third = #H.notes
  vim.cmd.buffer(geometry)
  vim.cmd('CodeKeepAgent Are you still there?')
  H.wait('third answer', 30000, agent_buffer_has('still here'))
  H.wait('agent finished', 5000, function() return require('codekeep.agent').running == nil end)
  R.third_notes = vim.list_slice(H.notes, third + 1)
  R.third_buffer = H.lines(vim.fn.bufnr('codekeep://agent'))
  vim.cmd('CodeKeepLedger')
  H.wait('ledger of the task', 10000, function()
    return vim.api.nvim_buf_get_name(0) == 'codekeep://ledger'
  end)
  R.ledger = H.lines()

  -- 4. The server dies while a task runs: one message, the task is over.
  vim.cmd.buffer(geometry)
  vim.cmd('CodeKeepAgent Take forever')
  H.wait('last task asked the model', 10000, function()
    return codekeep.statusline():find('agent', 1, true) ~= nil
  end)
  local before = #H.notes
  H.kill_server()
  H.wait('interrupted', 5000, agent_buffer_has('Interrupted'))
  R.died = vim.list_slice(H.notes, before + 1)
  R.statusline_dead = codekeep.statusline()
  R.after_death = H.note_of('CodeKeepAgent hello')

  -- :edit starts a new server (FileType); the editor's task continues on it.
  vim.cmd.buffer(geometry)
  vim.cmd.edit()
  H.wait('a new server', 20000, function()
    local client = H.client()
    return client ~= nil and not client:is_stopped() and client.initialized
      and vim.lsp.buf_is_attached(geometry, client.id)
  end)
  H.wait('statusline back', 20000, function()
    return codekeep.statusline():find('^CodeKeep ✓ [%d.]+k?/1k tok$') ~= nil
  end)
  R.statusline_restarted = codekeep.statusline()
  R.task_restarted = codekeep.task_id()
end)
