--- What the statusline shows (index state, the editor's task and its budget) and the
--- server's notifications that change it: `codekeep/budget`, `codekeep/nudge`, indexing
--- `$/progress`. Budget crossings and nudges reach the user through vim.notify at a level
--- that matches their severity.
local core = require('codekeep')
local methods = require('codekeep.methods')

local S = {
  task = nil, ---@type string|nil  the editor's task (its name: continuations T#2 are T)
  budget = nil, ---@type {used: integer, limit: integer, daily: boolean}|nil
  index = nil, ---@type 'indexing'|'ready'|nil
  percent = nil, ---@type integer|nil
  agent = nil, ---@type string|nil  the running agent's last step
  seen = false, -- a CodeKeep client ran in this session
  started = {}, -- client id -> true once its session state was fetched
  last_budget = nil, ---@type {used: integer, limit: integer, at: integer}|nil
  hosts = {}, ---@type {host: string, calls: integer, costUsd: number, unpricedCalls: integer}[]
}

local HOST_NAMES = { ['claude-code'] = 'Claude Code', codex = 'Codex' }

local levels = vim.log.levels
local ECHO_WINDOW_MS = 5000
local WARNING_NUDGES = { force_exit = true, budget_warning = true }

local function changed()
  pcall(vim.cmd.redrawstatus)
  vim.api.nvim_exec_autocmds('User', { pattern = 'CodeKeepStatus', modeline = false })
end

--- The task a (possibly continued) task id belongs to: "T#2" -> "T".
local function task_name(task_id)
  return (tostring(task_id):gsub('#%d+$', ''))
end

--- A ledger budget state `{task, daily}` (report, budget or task reply) for the statusline:
--- the task's budget, else the daily one.
function S.apply_budget(state)
  if type(state) ~= 'table' then
    return
  end
  local task, daily = state.task, state.daily
  if type(task) == 'table' then
    S.budget = { used = task.used, limit = task.limit, daily = false }
  elseif type(daily) == 'table' then
    S.budget = { used = daily.used, limit = daily.limit, daily = true }
  else
    S.budget = nil
  end
  changed()
end

--- A `codekeep/ledger/task` reply `{taskId, name, budget}`.
function S.apply_task(reply)
  S.task = core.str(reply.name) or S.task
  S.apply_budget(reply.budget)
end

--- Make the editor's task current on the server (a new one the first time) and run
--- fn(task name, reply). Calls recorded without a task id land on it from then on.
--- Returns the request id (nil: nothing sent, already said why); on_error runs if the
--- request fails.
function S.with_task(fn, client, on_error)
  return core.request(
    methods.requests.ledger_task,
    S.task and { taskId = S.task } or vim.empty_dict(),
    function(reply)
      S.apply_task(reply)
      fn(S.task, reply)
    end,
    { client = client, on_error = on_error }
  )
end

function S.budget_message(event)
  local subject = event.scope == 'daily' and "today's budget"
    or ('task ' .. task_name(event.taskId))
  local percent = math.floor(event.ratio * 100 + 0.5)
  local spent = ('%s of %s tokens'):format(core.count(event.used), core.count(event.limit))
  if event.ratio >= 1 then
    return ('CodeKeep: %s is over its token budget: %s (%d %%)'):format(subject, spent, percent),
      levels.ERROR
  end
  return ('CodeKeep: %s has used %d %% of its token budget (%s)'):format(subject, percent, spent),
    levels.WARN
end

--- `codekeep/budget {taskId, used, limit, ratio, threshold, scope}`
function S.on_budget(_, event)
  if type(event) ~= 'table' or not event.limit then
    return
  end
  local daily = event.scope == 'daily'
  local shown -- does the statusline show this budget?
  if daily then
    shown = S.budget == nil or S.budget.daily
  else
    shown = S.task == nil or task_name(event.taskId) == S.task
    S.task = shown and task_name(event.taskId) or S.task
  end
  if shown then
    S.budget = { used = event.used, limit = event.limit, daily = daily }
    changed()
  end
  S.last_budget = { used = event.used, limit = event.limit, at = vim.uv.now() }
  local message, level = S.budget_message(event)
  vim.notify(message, level)
end

--- `codekeep/nudge {taskId, type, text}`: the agent was told something (shown in its
--- buffer too); force_exit and budget_warning are warnings.
function S.on_nudge(_, nudge)
  if type(nudge) ~= 'table' then
    return
  end
  require('codekeep.agent').on_nudge(nudge)
  if core.options.nudges then
    local level = WARNING_NUDGES[nudge.type] and levels.WARN or levels.INFO
    local kind = tostring(nudge.type or 'nudge'):gsub('_', ' ')
    local text = vim.trim((tostring(nudge.text):gsub('%s+', ' ')))
    core.notify(('CodeKeep agent (%s): %s'):format(kind, text), level)
  end
end

--- The server also sends a budget crossing as a warning message; it restates the
--- notification just shown (same used/limit counts), so it is dropped.
function S.is_budget_echo(message)
  local last = S.last_budget
  if not last or vim.uv.now() - last.at > ECHO_WINDOW_MS or type(message) ~= 'string' then
    return false
  end
  return message:find(core.count(last.used), 1, true) ~= nil
    and message:find(core.count(last.limit), 1, true) ~= nil
end

function S.on_show_message(err, result, ctx, config)
  if type(result) == 'table' and S.is_budget_echo(result.message) then
    return
  end
  return vim.lsp.handlers['window/showMessage'](err, result, ctx, config)
end

--- "$0.0464"; "unpriced" when no call had a price, ">=$0.0464" when some had none.
function S.cost_text(cost, calls, unpriced)
  local dollars = ('$%.4f'):format(cost or 0)
  if (unpriced or 0) == 0 then
    return dollars
  end
  return (unpriced >= calls and (cost or 0) == 0) and 'unpriced' or ('>=' .. dollars)
end

--- Today's calls per agent host, across tasks (Claude Code and Codex sessions show here
--- as their hooks fold them).
function S.refresh_hosts(client)
  local today = os.date('!%Y-%m-%d')
  core.request(methods.requests.ledger_report, { since = today, groupBy = 'host' }, function(report)
    S.hosts = type(report.hosts) == 'table' and report.hosts or {}
    changed()
  end, { client = client, quiet_reason = true })
end

--- `codekeep/ledgerChanged {uri}`: another process (a hook) wrote to the ledger.
function S.on_ledger_changed(_, _, ctx)
  S.refresh_hosts(ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id) or nil)
end

--- Handlers for the client config (lsp/codekeep.lua uses them).
S.handlers = {
  [methods.notifications.budget] = function(...)
    core.guard(S.on_budget)(...)
  end,
  [methods.notifications.nudge] = function(...)
    core.guard(S.on_nudge)(...)
  end,
  [methods.notifications.ledger_changed] = function(...)
    core.guard(S.on_ledger_changed)(...)
  end,
  ['window/showMessage'] = S.on_show_message,
}

--- LspAttach: once per client, learn the index state and the editor's task.
function S.on_attach(client)
  S.seen = true
  if S.started[client.id] then
    return
  end
  S.started[client.id] = true
  core.request(methods.requests.index_status, vim.empty_dict(), function(status)
    if status.ready then
      S.index, S.percent = 'ready', nil
    elseif S.index ~= 'indexing' then -- keep the percentage progress already gave
      S.index = 'indexing'
    end
    changed()
  end, { client = client })
  S.refresh_hosts(client)
  S.with_task(function(task, reply)
    local budget = core.options.task_budget
    if budget and type((reply.budget or {}).task) ~= 'table' then -- the task has none yet
      core.request(
        methods.requests.ledger_budget,
        { taskId = task, limit = budget },
        S.apply_budget,
        { client = client }
      )
    end
  end, client)
end

--- LspProgress: indexing progress moves the index state; the agent's goes to its buffer.
function S.on_progress(client, params)
  local token, value = tostring(params.token or ''), params.value or {}
  if token:find('^codekeep%-agent%-') then
    require('codekeep.agent').on_progress(client, value)
  elseif token:find('^codekeep%-index%-') then
    if value.kind == 'end' then
      S.index, S.percent = 'ready', nil
    else
      S.index, S.percent = 'indexing', value.percentage or S.percent
    end
    changed()
  end
end

function S.set_agent(step)
  S.agent = step
  changed()
end

--- "CodeKeep ✓ 850/1k tok": index state (✓ ready, ⟳ 40% indexing, ✗ server not
--- running), the budget of the editor's task (else today's, "/day"), today's spend of
--- the other agent hosts ("Claude Code $0.0464"), the agent's step.
--- Empty until a CodeKeep server has run in this session.
function S.line()
  if core.client(0, true) == nil then
    return S.seen and 'CodeKeep ✗' or ''
  end
  local parts = { 'CodeKeep' }
  if S.index == 'indexing' then
    table.insert(parts, S.percent and ('⟳ %d%%'):format(S.percent) or '⟳')
  else
    table.insert(parts, '✓')
  end
  local budget = S.budget
  if budget and budget.limit and budget.limit > 0 then
    table.insert(
      parts,
      ('%s/%s tok%s'):format(
        core.short_count(budget.used),
        core.short_count(budget.limit),
        budget.daily and '/day' or ''
      )
    )
  end
  for _, row in ipairs(S.hosts) do
    local name = HOST_NAMES[row.host]
    if name and (row.calls or 0) > 0 then
      table.insert(parts, name .. ' ' .. S.cost_text(row.costUsd, row.calls, row.unpricedCalls))
    end
  end
  if S.agent then
    table.insert(parts, 'agent ' .. S.agent)
  end
  return table.concat(parts, ' ')
end

return S
