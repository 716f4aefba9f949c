--- :checkhealth codekeep — the executable and its version, the server running and
--- attached, the index and its counts, the agent's model, the databases.
local methods = require('codekeep.methods')
local M = {}
local health = vim.health
local TIMEOUT_MS = 5000

--- The configured server command (vim.lsp.config merges lsp/codekeep.lua and yours).
local function server_command()
  local config = vim.lsp.config.codekeep
  return config and config.cmd
end

local function check_executable(clients)
  local cmd = server_command()
  if type(cmd) ~= 'table' then
    if cmd == nil then
      health.error("no configuration: is editors/neovim on 'runtimepath'? (lsp/codekeep.lua)")
    else
      health.info('the server is reached through a function (e.g. vim.lsp.rpc.connect)')
    end
    return
  end
  local path = vim.fn.exepath(cmd[1])
  if path == '' then
    health.error(('%s not found on PATH'):format(cmd[1]), {
      'pip install codekeep (in the Python environment on PATH)',
      "or point vim.lsp.config('codekeep', { cmd = {...} }) at it",
    })
    return
  end
  health.ok(('executable: %s (%s)'):format(path, table.concat(cmd, ' ')))
  local info = clients[1] and clients[1].server_info
  if info and info.version then
    health.ok(('version: %s %s'):format(info.name or 'codekeep', info.version))
  elseif vim.fs.basename(path) == 'codekeep' then
    local done = vim.system({ path, '--version' }, { text = true }):wait(TIMEOUT_MS)
    if done.code == 0 then
      health.ok('version: ' .. vim.trim(done.stdout or ''))
    else
      health.warn(
        'version: unknown (`codekeep --version` failed: '
          .. vim.trim((done.stderr or ''):match('[^\n]*') or '')
          .. ')'
      )
    end
  end
end

local function request(client, method, params)
  local response, err = client:request_sync(method, params or vim.empty_dict(), TIMEOUT_MS, 0)
  if not response then
    return nil, tostring(err)
  elseif response.err then
    return nil, response.err.message
  end
  return response.result
end

local function check_index(client)
  local status, err = request(client, methods.requests.index_status)
  if not status then
    health.error('index: ' .. err)
    return
  end
  local languages = {} -- {python = 3, go = 1} -> "go 1, python 3"
  for name, files in pairs(type(status.languages) == 'table' and status.languages or {}) do
    table.insert(languages, ('%s %s'):format(name, files))
  end
  table.sort(languages)
  local counts = ('%d files, %d symbols, %d references (%s)'):format(
    status.files or 0,
    status.symbols or 0,
    status.references or 0,
    table.concat(languages, ', ')
  )
  if status.ready then
    health.ok('index ready: ' .. counts)
  else -- a first index is under way: not a fault (the answers say partial until it ends)
    local left = status.secondsLeft and (', about %d s left'):format(status.secondsLeft) or ''
    health.ok(
      ('indexing: %d of %d files%s (so far %s)'):format(
        status.indexed or 0,
        status.toIndex or 0,
        left,
        counts
      )
    )
  end
end

local function check_model(client)
  local model, err = request(client, methods.requests.agent_model)
  if not model then
    health.warn('agent model: ' .. err)
  elseif model.configured then
    health.ok(('agent model: %s at %s'):format(model.model, model.baseUrl))
  else
    health.warn('agent model: none configured (:CodeKeepAgent cannot run; everything else works)', {
      'set CODEKEEP_MODEL (and CODEKEEP_BASE_URL for a non-OpenAI endpoint)',
      "or settings = { codekeep = { agent = { model = '…', baseUrl = '…' } } }",
    })
  end
end

--- Each store file is a SQLite database, and the server answers from each.
local function check_databases(client)
  local root = require('codekeep').root(client)
  local cache = 'a cache: move it away and the server builds it again'
  local probes = {
    { file = 'index.db', method = methods.requests.index_status, advice = cache },
    {
      file = 'memory.db',
      method = methods.requests.memory_list,
      params = { limit = 1 },
      advice = 'stop the server and run `codekeep memory list --repair` (keeps every readable row)',
    },
    {
      file = 'ledger.db',
      method = methods.requests.ledger_budget,
      advice = 'stop the server and run `codekeep ledger report --repair` (keeps every readable row)',
    },
    {
      file = 'docs.db',
      method = methods.requests.docs_search,
      params = { query = 'readme', limit = 1 },
      advice = cache,
    },
  }
  for _, probe in ipairs(probes) do
    local path = vim.fs.joinpath(root, '.codekeep', probe.file)
    local file = io.open(path, 'rb')
    local header = file and file:read(16)
    if file then
      file:close()
    end
    local _, err = request(client, probe.method, probe.params)
    if not header then
      health.warn(('%s: missing (created on first use)'):format(path))
    elseif header ~= 'SQLite format 3\0' then -- the server's reason says what to do
      health.error(('%s: not a SQLite database'):format(path), { err or probe.advice })
    elseif err then
      health.error(('%s: the server cannot use it: %s'):format(path, err))
    else
      health.ok(('%s: SQLite, %d bytes, in use by the server'):format(path, vim.fn.getfsize(path)))
    end
  end
end

function M.check()
  health.start('codekeep')
  if vim.fn.has('nvim-0.11') == 0 then
    health.error('Neovim 0.11 or newer is needed (vim.lsp.config / vim.lsp.enable)')
  end
  local clients = vim.tbl_filter(function(client)
    return not client:is_stopped()
  end, vim.lsp.get_clients({ name = 'codekeep' }))
  check_executable(clients)
  if #clients == 0 then
    health.warn(
      'server: not running',
      { "open a file of a project (or :lua vim.lsp.enable('codekeep')) to start it" }
    )
    return
  end
  for _, client in ipairs(clients) do
    -- Right after the first file opens the client may still await the server's
    -- initialize answer: wait for it (bounded) rather than report its requests failing.
    vim.wait(TIMEOUT_MS, function()
      return client.initialized or client:is_stopped()
    end, 20)
    if not client.initialized then
      health.warn(('server starting: no answer to initialize after %d ms'):format(TIMEOUT_MS), {
        'run :checkhealth codekeep again in a moment; if it stays so, see :LspLog',
      })
      return
    end
    local buffers = vim.tbl_count(client.attached_buffers)
    local here = client.attached_buffers[vim.api.nvim_get_current_buf()] and ', this buffer' or ''
    health.ok(
      ('server running (client %d, root %s, %d buffers attached%s)'):format(
        client.id,
        require('codekeep').root(client),
        buffers,
        here
      )
    )
    check_index(client)
    check_model(client)
    check_databases(client)
  end
end

return M
