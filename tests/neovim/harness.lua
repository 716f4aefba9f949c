-- Shared by the Neovim scenarios: start real Neovim's LSP client on `codekeep serve`
-- with the plugin from editors/neovim, record every vim.notify, wait with bounds, write
-- what was seen as JSON to $CK_OUT. Every wait is bounded, so a hang fails fast.
local H = {
  root = assert(os.getenv('CK_ROOT')),
  out = assert(os.getenv('CK_OUT')),
  python = assert(os.getenv('CK_PYTHON')),
  editors = assert(os.getenv('CK_EDITORS')),
  results = { steps = {} },
  notes = {}, -- every vim.notify: {message, level}
}

function H.client()
  return vim.lsp.get_clients({ name = 'codekeep' })[1]
end

function H.wait(label, ms, predicate)
  if not vim.wait(ms, predicate, 20) then
    error('timed out waiting for ' .. label)
  end
  table.insert(H.results.steps, ('%s @%.1f'):format(label, vim.uv.hrtime() / 1e9))
end

--- Load the plugin as a user would (runtimepath), record vim.notify.
function H.load_plugin()
  vim.opt.runtimepath:prepend(H.editors)
  vim.cmd('filetype on')
  vim.cmd('runtime plugin/codekeep.lua')
  vim.notify = function(message, level)
    table.insert(H.notes, { message = message, level = level or vim.log.levels.INFO })
  end
end

--- Configure and enable the server (settings: the `codekeep` settings object).
function H.start(settings, setup)
  H.load_plugin()
  require('codekeep').setup(vim.tbl_extend('force', {
    lsp = {
      cmd = { H.python, '-m', 'codekeep.server', '--log-level', 'WARNING' },
      root_markers = { '.git' },
      settings = settings and { codekeep = settings } or nil,
    },
  }, setup or {}))
end

--- Edit a project file and wait until the client is attached and the index ready.
function H.open(path)
  vim.cmd.edit(vim.fs.joinpath(H.root, path))
  local buf = vim.api.nvim_get_current_buf()
  H.wait('attached to ' .. path, 20000, function()
    local client = H.client()
    return client ~= nil and client.initialized and vim.lsp.buf_is_attached(buf, client.id)
  end)
  H.wait('indexed', 20000, function() return H.request('codekeep/indexStatus').ready end)
  return buf
end

function H.request(method, params, bufnr)
  local response, err = H.client():request_sync(
    method, params or vim.empty_dict(), 10000, bufnr or vim.api.nvim_get_current_buf()
  )
  if not response then
    error(method .. ': ' .. tostring(err))
  end
  if response.err then
    error(method .. ': ' .. vim.inspect(response.err))
  end
  return response.result
end

--- Run an Ex command and return the notes it produced once `count` arrived (replies
--- come asynchronously), waiting a little longer to catch anything extra.
function H.notes_of(command, count, ms)
  local first = #H.notes + 1
  vim.cmd(command)
  H.wait(command, ms or 10000, function() return #H.notes - first + 1 >= (count or 1) end)
  vim.wait(100, function() return false end, 20)
  return vim.list_slice(H.notes, first)
end

--- The one note a command produced.
function H.note_of(command, ms)
  local notes = H.notes_of(command, 1, ms)
  if #notes ~= 1 then
    error(command .. ' produced ' .. vim.inspect(notes))
  end
  return notes[1]
end

function H.lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

function H.text(buf)
  return table.concat(H.lines(buf), '\n')
end

--- Kill the server process (a child of this Neovim running codekeep.server) outright.
function H.kill_server()
  local nvim = tostring(vim.fn.getpid())
  for _, stat in ipairs(vim.fn.glob('/proc/[0-9]*/stat', false, true)) do
    local file = io.open(stat)
    local line = file and file:read('*l')
    if file then
      file:close()
    end
    local pid, ppid = (line or ''):match('^(%d+) %b() %S+ (%d+)')
    if ppid == nvim then
      local cmdline = io.open('/proc/' .. pid .. '/cmdline')
      local text = cmdline and cmdline:read('*a') or ''
      if cmdline then
        cmdline:close()
      end
      if text:find('codekeep.server', 1, true) then
        vim.uv.kill(tonumber(pid), 'sigkill')
      end
    end
  end
  H.wait('server gone', 10000, function()
    local client = H.client()
    return client == nil or client:is_stopped()
  end)
end

--- Run the scenario, write results (and any error with its trace), quit.
function H.run(scenario)
  local ok, err = xpcall(scenario, debug.traceback)
  if not ok then
    H.results.error = err
  end
  H.results.notes = H.notes
  H.results.messages = vim.fn.execute('messages')
  local file = assert(io.open(H.out, 'w'))
  file:write(vim.json.encode(H.results))
  file:close()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop()
  end
  vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 20)
  vim.cmd(ok and 'qall!' or 'cquit!')
end

return H
