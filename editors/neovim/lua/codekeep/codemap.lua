--- The code map in Neovim: find / references / related / search fill the quickfix list,
--- the repository map opens in a scratch buffer.
local core = require('codekeep')
local methods = require('codekeep.methods')
local scratch = require('codekeep.scratch')

local M = {}

--- Quickfix items from Symbol / Reference objects ({uri, range, ...}).
function M.items(entries, client, label)
  local items = {}
  for _, entry in ipairs(entries) do
    local range = entry.selectionRange or entry.range
    local item = vim.lsp.util.locations_to_items(
      { { uri = entry.uri, range = range } },
      client.offset_encoding
    )[1]
    if entry.name and entry.kind then
      local signature = entry.signature ~= vim.NIL and entry.signature or ''
      item.text = (label or '')
        .. (signature ~= '' and signature or (entry.kind .. ' ' .. entry.name))
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
    core.notify('CodeKeep: nothing found for ' .. title)
  end
end

--- The cursor as {uri, position}; nil (and says so) in a window that shows no file,
--- such as the quickfix list, where the server could only answer "file:// has no line 0".
function M.cursor_params(client)
  local uri = core.file_uri(0)
  if not uri then
    core.notify('CodeKeep: the current window shows no file of the project', vim.log.levels.WARN)
    return nil
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  return { uri = uri, position = params.position }
end

--- A command argument that must not be empty: trimmed, or nil after saying what is missing.
function M.required(value, usage)
  value = vim.trim(value or '')
  if value == '' then
    core.notify('CodeKeep: ' .. usage, vim.log.levels.WARN)
    return nil
  end
  return value
end

--- A command's required argument and the client of the current buffer: both, or nil
--- after saying which is missing (the argument is checked first).
function M.asked(value, usage)
  value = M.required(value, usage)
  local client = value and core.client(0)
  if not client then
    return nil
  end
  return value, client
end

--- A symbol query into the quickfix list: {name} for find, {query} for search.
local function symbol_query(method, key, value, usage, title)
  value = M.required(value, usage)
  if value then
    core.request(method, { [key] = value }, function(result, client)
      M.show(title .. value, M.items(result.symbols or {}, client))
    end)
  end
end

function M.find(name)
  symbol_query(
    methods.requests.find_symbol,
    'name',
    name,
    ':CodeKeepFind needs a symbol name, e.g. :CodeKeepFind total_area',
    'CodeKeep find '
  )
end

function M.references(params)
  core.request(methods.requests.find_references, params, function(result, client)
    local title = ('CodeKeep references (%d)'):format(result.total or 0)
    M.show(title, M.items(result.references or {}, client))
  end)
end

function M.refs(name)
  local client = core.client(0)
  if not client then
    return
  end
  name = vim.trim(name or '')
  local params = name ~= '' and { name = name } or M.cursor_params(client)
  if params then
    M.references(params)
  end
end

function M.related()
  local client = core.client(0)
  local params = client and M.cursor_params(client)
  if not params then
    return
  end
  core.request(methods.requests.find_related, params, function(result)
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

--- One quickfix item per changed symbol, then its callers (indented by depth) and the
--- tests that reach it; an optional revision range ("HEAD~1..HEAD"), default HEAD
--- against the files on disk.
function M.impact(range)
  range = vim.trim(range or '')
  local params = range ~= '' and { revRange = range } or vim.empty_dict()
  core.request(methods.requests.impact, params, function(result, client)
    local root = core.root(client)
    local items = {}
    local function add(path, line, text)
      table.insert(items, { filename = root .. '/' .. path, lnum = line, col = 1, text = text })
    end
    for _, symbol in ipairs(result.symbols or {}) do
      local risk = #symbol.risk > 0 and (' [' .. table.concat(symbol.risk, ', ') .. ']') or ''
      add(symbol.path, symbol.line, symbol.change .. ' ' .. symbol.id .. risk)
      for _, caller in ipairs(symbol.callers) do
        add(caller.path, caller.line, string.rep('  ', caller.depth) .. '<- ' .. caller.id)
      end
      for _, test in ipairs(symbol.tests.files) do
        add(test, 1, '  test: ' .. test)
      end
    end
    M.show(('CodeKeep impact %s -> %s'):format(result.base, result.head), items)
  end)
end

function M.search(query)
  symbol_query(
    methods.requests.search_symbols,
    'query',
    query,
    ':CodeKeepSearch needs a query, e.g. :CodeKeepSearch totar',
    'CodeKeep search '
  )
end

function M.map(tokens)
  local params = vim.empty_dict()
  tokens = vim.trim(tokens or '')
  if tokens ~= '' then
    local count = tonumber(tokens)
    if not count or count < 1 or count % 1 ~= 0 then
      core.notify(
        'CodeKeep: :CodeKeepMap takes a token budget, e.g. :CodeKeepMap 2000',
        vim.log.levels.WARN
      )
      return
    end
    params = { tokens = count }
  end
  core.request(methods.requests.repo_map, params, function(result)
    scratch.open('codekeep://repo-map', scratch.lines(result.text))
  end)
end

--- :CodeKeepReindex — bring every folder's index up to date with the disk now.
function M.reindex()
  core.request(methods.requests.reindex, vim.empty_dict(), function(result)
    for _, folder in ipairs(type(result.folders) == 'table' and result.folders or {}) do
      local name = vim.fn.fnamemodify(vim.uri_to_fname(folder.uri), ':t')
      if core.str(folder.error) then
        core.notify(
          ('CodeKeep: reindexing %s failed: %s'):format(name, folder.error),
          vim.log.levels.ERROR
        )
      else
        core.notify(
          (
            'CodeKeep: %s reindexed: %d files (%d parsed, %d unchanged, %d removed), '
            .. '%d symbols in %.1f s'
          ):format(
            name,
            folder.files or 0,
            folder.parsed or 0,
            folder.unchanged or 0,
            folder.removed or 0,
            folder.symbols or 0,
            folder.seconds or 0
          )
        )
      end
    end
  end)
end

return M
