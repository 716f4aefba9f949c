--- The token ledger in Neovim: the report in a scratch buffer and the budgets of the
--- editor's task and of the day.
local core = require('codekeep')
local methods = require('codekeep.methods')
local scratch = require('codekeep.scratch')
local status = require('codekeep.status')

local M = {}
local levels = vim.log.levels

--- :CodeKeepLedger [task|day|file|host|claude-code|codex]: what each argument reports.
local VIEWS = {
  [''] = { group_by = 'type', own_task = true, title = 'task %s, by call type' },
  file = { group_by = 'file', own_task = true, title = 'task %s, by file' },
  task = { group_by = 'task', title = 'every task' },
  day = { group_by = 'day', title = 'every day (UTC)' },
  host = { group_by = 'host', title = 'every agent host' },
  ['claude-code'] = { group_by = 'task', host = 'claude-code', title = 'Claude Code sessions' },
  codex = { group_by = 'task', host = 'codex', title = 'Codex sessions' },
}

function M.report(arg)
  local view = VIEWS[vim.trim(arg or '')]
  if not view then
    core.notify(
      ("CodeKeep: :CodeKeepLedger takes task, day, file, host, claude-code or codex (got '%s')"):format(
        vim.trim(arg)
      ),
      levels.WARN
    )
    return
  end
  status.with_task(function(task)
    local params =
      { groupBy = view.group_by, taskId = view.own_task and task or nil, host = view.host }
    core.request(methods.requests.ledger_report, params, function(report)
      if view.own_task then
        status.apply_budget(report.budget)
      end
      local lines = { 'CodeKeep ledger: ' .. view.title:format(task), '' }
      if core.str(report.reason) then
        vim.list_extend(lines, { report.reason, '' })
      end
      vim.list_extend(lines, scratch.lines(report.text))
      scratch.open('codekeep://ledger', lines)
    end, { quiet_reason = true })
  end)
end

--- "50000", "50,000", "50_000", "50k", "1.5M" -> tokens; nil for anything else.
function M.parse_tokens(text)
  local number, suffix = tostring(text):gsub('[,_]', ''):lower():match('^(%d+%.?%d*)([km]?)$')
  if not number then
    return nil
  end
  local tokens = tonumber(number) * (suffix == 'k' and 1000 or suffix == 'm' and 1000000 or 1)
  return tokens % 1 == 0 and tokens or nil
end

local USAGE = ":CodeKeepBudget takes a token count and optionally 'daily', e.g. "
  .. ':CodeKeepBudget 50k or :CodeKeepBudget 200000 daily (0 removes the budget)'

local function said(state, what)
  if type(state) ~= 'table' then
    return what .. ' removed'
  end
  return ('%s set to %s tokens (%s used, %d %%)'):format(
    what,
    core.count(state.limit),
    core.count(state.used),
    math.floor(state.ratio * 100 + 0.5)
  )
end

--- :CodeKeepBudget {tokens} [daily]
function M.budget(args)
  local words = vim.split(vim.trim(args or ''), '%s+', { trimempty = true })
  local tokens = words[1] and M.parse_tokens(words[1])
  local daily = words[2] == 'daily'
  if not tokens or #words > 2 or (words[2] and not daily) then
    core.notify('CodeKeep: ' .. USAGE, levels.WARN)
    return
  end
  if daily then
    core.request(methods.requests.ledger_budget, { daily = tokens }, function(state)
      status.apply_budget(state)
      core.notify('CodeKeep: ' .. said(state.daily, 'daily budget'))
    end)
    return
  end
  status.with_task(function(task)
    core.request(methods.requests.ledger_budget, { taskId = task, limit = tokens }, function(state)
      status.apply_budget(state)
      core.notify('CodeKeep: ' .. said(state.task, 'budget of task ' .. task))
    end)
  end)
end

local RECORD_USAGE = ':CodeKeepRecord takes a model, input tokens and optionally output '
  .. 'tokens and a call type, e.g. :CodeKeepRecord gpt-4o 12k 800 read_code'

--- :CodeKeepRecord {model} {input} [output] [call_type] — a model call made outside
--- CodeKeep (a chat in the browser) counted on the editor's task and its budget.
function M.record(args)
  local words = vim.split(vim.trim(args or ''), '%s+', { trimempty = true })
  local input = words[2] and M.parse_tokens(words[2])
  local output = words[3] and M.parse_tokens(words[3]) or 0
  if not input or (words[3] and not M.parse_tokens(words[3])) or #words > 4 then
    core.notify('CodeKeep: ' .. RECORD_USAGE, levels.WARN)
    return
  end
  local call_type = words[4] or 'other'
  status.with_task(function(task)
    local params = {
      taskId = task,
      model = words[1],
      callType = call_type,
      inputTokens = input,
      outputTokens = output,
    }
    core.request(methods.requests.ledger_record, params, function(stored)
      core.notify(
        ('CodeKeep: recorded %s tokens (%s, %s) on task %s'):format(
          core.count(input + output),
          call_type,
          words[1],
          tostring(stored.taskId)
        )
      )
      core.request(methods.requests.ledger_budget, { taskId = task }, status.apply_budget)
    end)
  end)
end

return M
