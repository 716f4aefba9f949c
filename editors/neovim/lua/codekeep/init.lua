--- CodeKeep for Neovim 0.11+: the editor side of `codekeep serve`.
---
--- require('codekeep').setup(opts)   optional: options, vim.lsp.config/enable for you
--- require('codekeep').statusline()  "CodeKeep ✓ 850/1k tok" for 'statusline' / lualine
--- require('codekeep').task_id()     the editor's current ledger task
--- require('codekeep').request(method, params, on_result)  any custom request
---
--- Every user-facing failure (no server, a server that died, bad input) is one line
--- through vim.notify, never a Lua error trace: commands run through M.guard().
local M = {}

---@class codekeep.Options
---@field enable boolean          call vim.lsp.enable('codekeep') in setup()
---@field lsp table|nil           passed to vim.lsp.config('codekeep', ...) in setup()
---@field task_budget integer|nil tokens: the budget a new editor task gets
---@field nudges boolean          show the agent's nudges with vim.notify
---@field recall_limit integer    memories :CodeKeepRecall lists
---@field agent_capability string 'explore', 'chat' or 'edit' (tools the agent may use)
M.defaults = {
  enable = true,
  lsp = nil,
  task_budget = nil,
  nudges = true,
  recall_limit = 20,
  agent_capability = 'chat',
}

---@type codekeep.Options
M.options = vim.deepcopy(M.defaults)

local NOT_RUNNING = 'CodeKeep: the language server is not running (:checkhealth codekeep)'

--- One line: the first line of a message, so a server's multi-line error stays short.
function M.one_line(text)
  return (tostring(text or ''):gsub('\r', ''):match('^[^\n]*'))
end

--- A JSON string value, or nil (absent, null -> vim.NIL, empty, not a string).
function M.str(value)
  return type(value) == 'string' and value ~= '' and value or nil
end

function M.notify(message, level)
  vim.notify(M.one_line(message), level or vim.log.levels.INFO)
end

--- Run fn(...) and turn any Lua error into a one-line message instead of a trace.
function M.guard(fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      M.notify('CodeKeep: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

--- The running CodeKeep client of the buffer, else any running one; nil (and says so)
--- when there is none, or only one that has stopped.
function M.client(bufnr, quiet)
  for _, filter in ipairs({ { name = 'codekeep', bufnr = bufnr or 0 }, { name = 'codekeep' } }) do
    for _, client in ipairs(vim.lsp.get_clients(filter)) do
      if not client:is_stopped() then
        return client
      end
    end
  end
  if not quiet then
    M.notify(NOT_RUNNING, vim.log.levels.WARN)
  end
  return nil
end

--- The file URI of a buffer that shows a file; nil for scratch, help, quickfix, unnamed.
function M.file_uri(bufnr)
  bufnr = bufnr or 0
  local name = vim.api.nvim_buf_get_name(bufnr)
  if vim.bo[bufnr].buftype ~= '' or name == '' then
    return nil
  end
  return vim.uri_from_fname(name)
end

--- The file URI of a buffer when the file is inside one of the client's workspace
--- folders (memory links, the folder a request is routed to); nil otherwise.
function M.project_uri(client, bufnr)
  return M.folder_uri(client, bufnr) and M.file_uri(bufnr)
end

--- The URI of the workspace folder holding a buffer's file: routes a request to that
--- folder without naming the file (a recall given the file prefers memories about it,
--- and would rank differently from `codekeep memory recall` with the same query).
function M.folder_uri(client, bufnr)
  local uri = M.file_uri(bufnr)
  local path = uri and vim.fs.normalize(vim.uri_to_fname(uri))
  for _, folder in ipairs(path and client.workspace_folders or {}) do
    if vim.fs.relpath(vim.fs.normalize(vim.uri_to_fname(folder.uri)), path) then
      return folder.uri
    end
  end
  return nil
end

--- The workspace folder a relative path of the server's answers is relative to.
function M.root(client)
  local folder = (client.workspace_folders or {})[1]
  return folder and vim.uri_to_fname(folder.uri) or client.root_dir or vim.fn.getcwd()
end

---@class codekeep.RequestOpts
---@field quiet_reason boolean|nil  do not show a result's `reason`
---@field on_error fun(message: string)|nil  after the error was shown
---@field client vim.lsp.Client|nil

--- Send a custom request; on_result(result, client) runs guarded. Errors and a result's
--- `reason` are shown in one line. Returns the request id (nil when nothing was sent).
---@param opts codekeep.RequestOpts|nil
function M.request(method, params, on_result, opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local client = opts.client or M.client(bufnr)
  if not client then
    return nil
  end
  local short = method:gsub('^codekeep/', '')
  local ok, request_id = client:request(method, params or vim.empty_dict(), function(err, result)
    if err then
      M.notify(('CodeKeep %s: %s'):format(short, err.message), vim.log.levels.ERROR)
      if opts.on_error then
        M.guard(opts.on_error)(M.one_line(err.message))
      end
      return
    end
    if type(result) == 'table' and M.str(result.reason) and not opts.quiet_reason then
      M.notify('CodeKeep: ' .. result.reason)
    end
    M.guard(on_result)(type(result) == 'table' and result or {}, client)
  end, bufnr)
  if not ok then
    M.notify(NOT_RUNNING, vim.log.levels.WARN)
    return nil
  end
  return request_id
end

--- 850 -> "850", 1000 -> "1k", 12400 -> "12.4k", 1250000 -> "1.25M" (the server's lens format).
function M.short_count(tokens)
  if tokens >= 1000000 then
    return ('%.3gM'):format(tokens / 1000000)
  elseif tokens >= 1000 then
    return ('%.3gk'):format(tokens / 1000)
  end
  return tostring(tokens)
end

--- 1234567 -> "1,234,567"
function M.count(n)
  local text = tostring(math.floor(n))
  local sign, digits = text:match('^(-?)(%d+)$')
  return sign .. digits:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^,', '')
end

function M.statusline()
  return require('codekeep.status').line()
end

--- The editor's current ledger task (the task :CodeKeepAgent runs and calls recorded
--- without a task id land on); nil until the server has told us.
function M.task_id()
  return require('codekeep.status').task
end

---@param opts codekeep.Options|nil
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if M.options.lsp then
    vim.lsp.config('codekeep', M.options.lsp)
  end
  if M.options.enable then
    vim.lsp.enable('codekeep')
  end
end

return M
