-- User commands for CodeKeep's custom requests (Neovim 0.11+).
--   :CodeKeepFind {name}      codekeep/findSymbol     -> quickfix
--   :CodeKeepRefs [name]      codekeep/findReferences -> quickfix (no name: symbol under cursor)
--   :CodeKeepRelated          codekeep/findRelated    -> quickfix (symbol, calls, callers, related)
--   :CodeKeepSearch {query}   codekeep/searchSymbols  -> quickfix (fuzzy)
--   :CodeKeepMap [tokens]     codekeep/repoMap        -> scratch buffer
if vim.g.loaded_codekeep then
  return
end
vim.g.loaded_codekeep = true

local M = {}

--- The CodeKeep client for the current buffer, else any running one.
local function client_for(bufnr)
  local clients = vim.lsp.get_clients({ name = 'codekeep', bufnr = bufnr })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = 'codekeep' })
  end
  if #clients == 0 then
    vim.notify('CodeKeep: the language server is not running', vim.log.levels.WARN)
    return nil
  end
  return clients[1]
end

--- Send a custom request and hand the result to on_result (errors are reported).
function M.request(method, params, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  client:request(method, params, function(err, result)
    if err then
      vim.notify(('CodeKeep %s: %s'):format(method, err.message), vim.log.levels.ERROR)
      return
    end
    if result and result.reason then
      vim.notify('CodeKeep: ' .. result.reason, vim.log.levels.INFO)
    end
    on_result(result or {}, client)
  end, bufnr)
end

--- Quickfix items from Symbol / Reference objects ({uri, range, ...}).
function M.items(entries, client, label)
  local items = {}
  for _, entry in ipairs(entries) do
    local range = entry.selectionRange or entry.range
    local item = vim.lsp.util.locations_to_items(
      { { uri = entry.uri, range = range } }, client.offset_encoding
    )[1]
    if entry.name and entry.kind then
      local signature = entry.signature ~= vim.NIL and entry.signature or ''
      item.text = (label or '') .. (signature ~= '' and signature or (entry.kind .. ' ' .. entry.name))
    elseif label then
      item.text = label .. (item.text or '')
    end
    table.insert(items, item)
  end
  return items
end

function M.show(title, items)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if #items > 0 then
    vim.cmd('botright copen')
  else
    vim.notify('CodeKeep: nothing found for ' .. title, vim.log.levels.INFO)
  end
end

--- The cursor as {uri, position}; nil (and says so) in a window that shows no file,
--- such as the quickfix list, where the server could only answer "file:// has no line 0".
local function cursor_params(client)
  if vim.bo.buftype ~= '' or vim.api.nvim_buf_get_name(0) == '' then
    vim.notify('CodeKeep: the current window shows no file of the project', vim.log.levels.WARN)
    return nil
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  return { uri = params.textDocument.uri, position = params.position }
end

function M.find(name)
  M.request('codekeep/findSymbol', { name = name }, function(result, client)
    M.show('CodeKeep find ' .. name, M.items(result.symbols or {}, client))
  end)
end

function M.references(params)
  M.request('codekeep/findReferences', params, function(result, client)
    local title = ('CodeKeep references (%d)'):format(result.total or 0)
    M.show(title, M.items(result.references or {}, client))
  end)
end

function M.refs(name)
  local client = client_for(0)
  if not client then
    return
  end
  local params = (name and name ~= '') and { name = name } or cursor_params(client)
  if params then
    M.references(params)
  end
end

-- Clicking a "N references" code lens runs this in Neovim (not on the server), so the
-- references land in the quickfix list.
vim.lsp.commands['codekeep.findReferences'] = function(command)
  M.references((command.arguments or {})[1] or {})
end

function M.related()
  local client = client_for(0)
  if not client then
    return
  end
  local params = cursor_params(client)
  if not params then
    return
  end
  M.request('codekeep/findRelated', params, function(result)
    local items = {}
    if result.symbol and result.symbol ~= vim.NIL then
      vim.list_extend(items, M.items({ result.symbol }, client, 'this: '))
    end
    vim.list_extend(items, M.items(result.calls or {}, client, 'calls: '))
    vim.list_extend(items, M.items(result.calledBy or {}, client, 'called by: '))
    vim.list_extend(items, M.items(result.related or {}, client, 'related: '))
    M.show('CodeKeep related', items)
  end)
end

function M.search(query)
  M.request('codekeep/searchSymbols', { query = query }, function(result, client)
    M.show('CodeKeep search ' .. query, M.items(result.symbols or {}, client))
  end)
end

function M.map(tokens)
  local params = {}
  if tokens and tokens ~= '' then
    params.tokens = tonumber(tokens)
  end
  M.request('codekeep/repoMap', params, function(result)
    vim.cmd('botright new')
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].swapfile = false
    vim.api.nvim_buf_set_name(buf, ('codekeep://repo-map/%d'):format(buf))
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.text or '', '\n'))
    vim.bo[buf].modifiable = false
  end)
end

vim.api.nvim_create_user_command('CodeKeepFind', function(o) M.find(o.args) end,
  { nargs = 1, desc = 'CodeKeep: find a symbol by name' })
vim.api.nvim_create_user_command('CodeKeepRefs', function(o) M.refs(o.args) end,
  { nargs = '?', desc = 'CodeKeep: references of a name or of the symbol under the cursor' })
vim.api.nvim_create_user_command('CodeKeepRelated', function() M.related() end,
  { nargs = 0, desc = 'CodeKeep: what the code under the cursor calls, is called by, relates to' })
vim.api.nvim_create_user_command('CodeKeepSearch', function(o) M.search(o.args) end,
  { nargs = 1, desc = 'CodeKeep: fuzzy symbol search' })
vim.api.nvim_create_user_command('CodeKeepMap', function(o) M.map(o.args) end,
  { nargs = '?', desc = 'CodeKeep: ranked repository map (optional token budget)' })

package.loaded['codekeep'] = M
