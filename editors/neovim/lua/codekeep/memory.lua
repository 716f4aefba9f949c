--- Memory in Neovim: remember (linked to the current file and symbol), recall into a
--- scratch buffer (<CR> opens a linked file; not-this / forget / promote on the memory
--- under the cursor), the team's memories (a team database configured: docs/team.md)
--- and MEMORY.md, whose unusable lines the server shows as diagnostics.
local core = require('codekeep')
local methods = require('codekeep.methods')
local codemap = require('codekeep.codemap')
local scratch = require('codekeep.scratch')

local M = {}
local levels = vim.log.levels
local RECALL_BUFFER = 'codekeep://recall'
local TEAM_BUFFER = 'codekeep://team'

--- bufnr -> {title, query?, memories, root, rows = {[lnum] = {memory, file?}}}
local views = {}

local show -- defined below render()

local function quote(text, width)
  return '"' .. scratch.one_line(text, width) .. '"'
end

--- "CodeKeep memory REINFORCE m1a2: same content seen again · linked to pkg/a.py". The
--- text is not repeated: it may hold a secret the server redacted (messages are kept).
local function remembered(result, links)
  local action, id, reason =
    core.str(result.action) or '?', core.str(result.id), core.str(result.reason)
  local message = 'CodeKeep memory ' .. action .. (id and (' ' .. id) or '')
  if reason then
    message = message .. ': ' .. reason
  end
  if #links > 0 and id then
    message = message .. ' · linked to ' .. table.concat(links, ', ')
  end
  local failed = action == 'SKIP' or action == 'REJECT' or not id
  return message, failed and levels.WARN or levels.INFO
end

--- Remember ``text`` in ``scope`` (project, or team: the team database), linked to the
--- current file and the symbol under the cursor.
local function remember_in(text, scope, command)
  local content, client = codemap.asked(
    text,
    ('%s needs the text to remember, e.g. %s tests ' .. 'run with pytest -q'):format(
      command,
      command
    )
  )
  if not client then
    return
  end
  local uri = core.project_uri(client, 0)
  local params = { content = content, scope = scope }
  local links = {}

  local function send()
    core.request(methods.requests.remember, params, function(result)
      core.notify(remembered(result, links))
    end, { quiet_reason = true })
  end

  if not uri then
    return send() -- nothing to link: a scratch buffer, a file of another project
  end
  params.uri, params.files = uri, { uri }
  table.insert(links, vim.fn.fnamemodify(vim.uri_to_fname(uri), ':.'))
  local position = vim.lsp.util.make_position_params(0, client.offset_encoding).position
  core.request(methods.requests.find_related, { uri = uri, position = position }, function(related)
    if type(related.symbol) == 'table' and related.symbol.id then
      params.symbols = { related.symbol.id }
      table.insert(links, related.symbol.id)
    end
    send()
  end, { quiet_reason = true, on_error = send })
end

function M.remember(text)
  remember_in(text, 'project', ':CodeKeepRemember')
end

function M.remember_team(text)
  remember_in(text, 'team', ':CodeKeepRememberTeam')
end

--- "0.61  fact            text  [not this] (team · by alice)": a team memory says whose.
local function memory_line(memory)
  local flags = {}
  for _, flag in ipairs(type(memory.flags) == 'table' and memory.flags or {}) do
    table.insert(flags, tostring(flag))
  end
  local text = scratch.one_line(memory.content)
  local tail = #flags > 0 and ('  [' .. table.concat(flags, ', ') .. ']') or ''
  if memory.scope == 'team' then
    tail = tail
      .. ' (team'
      .. (core.str(memory.author) and (' · by ' .. memory.author) or '')
      .. ')'
  end
  return ('%5.2f  %-15s %s%s'):format(
    tonumber(memory.score) or 0,
    tostring(memory.kind),
    text,
    tail
  )
end

local function render(buf)
  local view = views[buf]
  local lines = {
    ('%s: %d %s'):format(
      view.title,
      #view.memories,
      #view.memories == 1 and 'memory' or 'memories'
    ),
    '<CR> opens a linked file · :CodeKeepNotThis ranks the memory lower · :CodeKeepForget drops it'
      .. ' · :CodeKeepPromote shares it with the team',
    '',
  }
  view.rows = {}
  for _, memory in ipairs(view.memories) do
    table.insert(lines, memory_line(memory))
    view.rows[#lines] = { memory = memory }
    for _, file in ipairs(type(memory.files) == 'table' and memory.files or {}) do
      table.insert(lines, '       → ' .. file)
      view.rows[#lines] = { memory = memory, file = file }
    end
  end
  scratch.set_lines(buf, lines)
end

--- The recall row under the cursor, or nil (and says why).
local function row_under_cursor()
  local view = views[vim.api.nvim_get_current_buf()]
  local row = view and view.rows[vim.api.nvim_win_get_cursor(0)[1]]
  if not row then
    core.notify('CodeKeep: put the cursor on a memory in the :CodeKeepRecall buffer', levels.WARN)
  end
  return row, view
end

local function open_linked()
  local row, view = row_under_cursor()
  if not row then
    return
  end
  local file = row.file or (type(row.memory.files) == 'table' and row.memory.files[1])
  if not file then
    core.notify('CodeKeep: this memory is not linked to a file', levels.WARN)
    return
  end
  scratch.open_file(vim.fs.joinpath(view.root, file))
end

--- Open (or reuse) scratch buffer ``name`` showing ``view``'s memories.
show = function(name, view)
  local buf = scratch.open(name, {})
  views[buf] = view
  render(buf)
  vim.keymap.set(
    'n',
    '<CR>',
    core.guard(open_linked),
    { buffer = buf, desc = 'CodeKeep: open the linked file' }
  )
end

function M.recall(query)
  local client
  query, client = codemap.asked(
    query,
    ':CodeKeepRecall needs a query, e.g. :CodeKeepRecall how do I run the tests'
  )
  if not client then
    return
  end
  local params = {
    query = query,
    limit = core.options.recall_limit,
    uri = core.folder_uri(client, 0), -- the folder only: ranked as the CLI ranks it
  }
  core.request(methods.requests.recall, params, function(result)
    local memories = type(result.memories) == 'table' and result.memories or {}
    if #memories == 0 then
      core.notify(('CodeKeep: nothing remembered about %s'):format(quote(query, 50)))
      return
    end
    show(RECALL_BUFFER, {
      title = 'CodeKeep recall ' .. quote(query, 50),
      query = query,
      memories = memories,
      root = core.root(client),
    })
  end)
end

--- :CodeKeepTeam — the team's memories, newest first, in a scratch buffer (the server
--- says in one line when no team database is configured or it cannot be reached).
function M.team()
  local client = core.client(0)
  if not client then
    return
  end
  local params = { scope = 'team', limit = 200, uri = core.project_uri(client, 0) }
  core.request(methods.requests.memory_list, params, function(result)
    local memories = type(result.memories) == 'table' and result.memories or {}
    if #memories == 0 then
      core.notify(
        'CodeKeep: the team has no memories yet (:CodeKeepRememberTeam, ' .. ':CodeKeepPromote)'
      )
      return
    end
    show(
      TEAM_BUFFER,
      { title = 'CodeKeep team memories', memories = memories, root = core.root(client) }
    )
  end)
end

--- :CodeKeepNotThis / :CodeKeepForget / :CodeKeepPromote: on the memory id given, else
--- the one under the cursor in the recall buffer; done(id, memory, result) updates the
--- view (memory: the row shown in this recall buffer, if any). ``params`` replaces the
--- request's own (``id`` is added); ``options`` go to core.request.
local function on_memory(method, id, done, params, options)
  id = vim.trim(id or '')
  local buf = vim.api.nvim_get_current_buf()
  local view, memory = views[buf], nil
  if id == '' then
    local row = row_under_cursor()
    if not row then
      return
    end
    id, memory = row.memory.id, row.memory
  elseif view then
    memory = vim.iter(view.memories):find(function(m)
      return m.id == id
    end)
  end
  params = params
    or {
      reason = view and view.query and ('from :CodeKeepRecall ' .. quote(view.query, 50)),
    }
  params.id = id
  core.request(method, params, function(result)
    if result.ok == false then
      core.notify(('CodeKeep: no memory %s (already forgotten?)'):format(id), levels.WARN)
      return
    end
    done(id, memory, result)
    if memory and views[buf] and vim.api.nvim_buf_is_valid(buf) then
      render(buf)
    end
  end, options)
end

function M.not_this(id)
  on_memory(methods.requests.not_this, id, function(memory_id, memory)
    local flags = memory and type(memory.flags) == 'table' and memory.flags or {}
    if memory and not vim.tbl_contains(flags, 'not this') then
      memory.flags = vim.list_extend(flags, { 'not this' })
    end
    core.notify(('CodeKeep: memory %s will rank lower (not this)'):format(memory_id))
  end)
end

function M.forget(id)
  local view = views[vim.api.nvim_get_current_buf()]
  on_memory(methods.requests.forget, id, function(memory_id, memory)
    if view and memory then
      view.memories = vim.tbl_filter(function(m)
        return m ~= memory
      end, view.memories)
    end
    core.notify(('CodeKeep: forgot memory %s'):format(memory_id))
  end)
end

--- :CodeKeepPromote [id] — share a project or user memory with the team (the server
--- screens and redacts it again; the team row records who promoted it).
function M.promote(id)
  on_memory(methods.requests.promote, id, function(memory_id, _, result)
    local message, level = remembered(result, {})
    core.notify(message:gsub('^CodeKeep memory', 'CodeKeep: ' .. memory_id .. ' →', 1), level)
  end, { to = 'team' }, { quiet_reason = true })
end

--- :CodeKeepNotes — .codekeep/MEMORY.md of the folder, created from the template when
--- missing. The buffer is attached to the server, so saving it re-syncs memory and the
--- lines the catalog rejects come back as diagnostics.
function M.notes()
  local client = core.client(0)
  if not client then
    return
  end
  core.request(methods.requests.notes, { uri = core.project_uri(client, 0) }, function(result)
    vim.cmd.edit(vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
    local buf = vim.api.nvim_get_current_buf()
    if not vim.lsp.buf_is_attached(buf, client.id) then
      vim.lsp.buf_attach_client(buf, client.id)
    end
    local invalid = type(result.invalid) == 'table' and #result.invalid or 0
    if result.created then
      core.notify(
        'CodeKeep: created .codekeep/MEMORY.md from the template; saving it updates memory'
      )
    elseif invalid > 0 then
      core.notify(
        ('CodeKeep: %d %s of MEMORY.md %s not used (see the diagnostics)'):format(
          invalid,
          invalid == 1 and 'line' or 'lines',
          invalid == 1 and 'is' or 'are'
        ),
        levels.WARN
      )
    end
  end, { client = client })
end

return M
