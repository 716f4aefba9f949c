--- The agent in Neovim: :CodeKeepAgent {task} runs `codekeep/agent/run` on the editor's
--- task; its `$/progress` (each step and tool call) and nudges are written into a
--- scratch buffer as they come, the answer follows. One task at a time.
local core = require('codekeep')
local methods = require('codekeep.methods')
local scratch = require('codekeep.scratch')
local status = require('codekeep.status')

local M = {}
local levels = vim.log.levels
local BUFFER = 'codekeep://agent'
local WATCH_MS = 500

---@class codekeep.AgentRun
---@field task string
---@field client vim.lsp.Client|nil
---@field request_id integer|nil
---@field buf integer|nil
---@field timer uv.uv_timer_t|nil

---@type codekeep.AgentRun|nil
M.running = nil

local function append(lines)
  local run = M.running
  if run and run.buf and vim.api.nvim_buf_is_valid(run.buf) then
    scratch.set_lines(run.buf, scratch.lines(table.concat(lines, '\n')), -1, -1)
  end
end

--- Stop following the run (answered, failed, cancelled or the server went away).
local function finish(lines)
  append(lines)
  local run = M.running
  if run and run.timer then
    run.timer:stop()
    run.timer:close()
  end
  M.running = nil
  status.set_agent(nil) -- the server continues the editor's task (T#2) for what comes next
end

local function plural(n, word)
  return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
end

local function answer_lines(result)
  local lines = { '', '## Answer', '' }
  vim.list_extend(lines, scratch.lines(result.answer))
  local calls = type(result.toolCalls) == 'table' and result.toolCalls or {}
  local stop = core.str(result.stopReason) and (' · stop: ' .. result.stopReason) or ''
  vim.list_extend(lines, {
    '',
    ('Task %s · %s · %s · %s tokens%s'):format(
      tostring(result.taskId),
      plural(tonumber(result.iterations) or 0, 'iteration'),
      plural(#calls, 'tool call'),
      core.count(tonumber(result.tokens) or 0),
      stop
    ),
  })
  for index, call in ipairs(calls) do
    local files = type(call.files) == 'table' and table.concat(call.files, ', ') or ''
    table.insert(
      lines,
      ('%d. %s %s%s'):format(
        index,
        tostring(call.name),
        tostring(call.outcome),
        files ~= '' and (' · ' .. files) or ''
      )
    )
  end
  return lines
end

--- Watch the client while the task runs: a server that dies never answers.
local function watch(run)
  run.timer = vim.uv.new_timer()
  run.timer:start(
    WATCH_MS,
    WATCH_MS,
    vim.schedule_wrap(function()
      if M.running == run and run.client:is_stopped() then
        core.notify(
          'CodeKeep agent: the language server stopped; the task was interrupted',
          levels.ERROR
        )
        finish({ '', 'Interrupted: the language server stopped.' })
      end
    end)
  )
end

function M.run(task)
  task = vim.trim(task or '')
  if task == '' then
    core.notify(
      'CodeKeep: :CodeKeepAgent needs a task, e.g. :CodeKeepAgent where is the '
        .. 'ledger flushed?',
      levels.WARN
    )
    return
  end
  if M.running then
    core.notify(
      'CodeKeep: an agent task is already running (:CodeKeepAgentCancel stops it)',
      levels.WARN
    )
    return
  end
  local client = core.client(0)
  if not client then
    return
  end
  local uri = core.project_uri(client, 0)
  local run = { task = task, client = client }
  M.running = run
  local sent = status.with_task(
    function(task_id)
      if M.running ~= run then
        return -- cancelled before it started
      end
      run.buf = scratch.open(BUFFER, {
        '# CodeKeep agent: ' .. task,
        '',
        ('Task %s · %s'):format(task_id, core.options.agent_capability),
        '',
        '## Steps',
        '',
      }, 'markdown')
      local params = {
        task = task,
        taskId = task_id,
        capability = core.options.agent_capability,
        uri = uri,
      }
      run.request_id = core.request(methods.requests.agent_run, params, function(result)
        if M.running == run then
          finish(answer_lines(result))
          core.notify(
            ('CodeKeep agent: done (%s, %s tokens)'):format(
              plural(tonumber(result.iterations) or 0, 'iteration'),
              core.count(tonumber(result.tokens) or 0)
            )
          )
        end
      end, {
        client = client,
        on_error = function(message)
          if M.running == run then
            finish({ '', 'Failed: ' .. message })
          end
        end,
      })
      if run.request_id then
        watch(run)
      else
        M.running = nil
      end
    end,
    client,
    function()
      if M.running == run then
        M.running = nil
      end
    end
  )
  if not sent and M.running == run then
    M.running = nil
  end
end

function M.cancel()
  local run = M.running
  if not run then
    core.notify('CodeKeep: no agent task is running', levels.WARN)
    return
  end
  if run.request_id and not run.client:is_stopped() then
    run.client:cancel_request(run.request_id)
  end
  finish({ '', 'Cancelled.' })
  core.notify('CodeKeep agent: cancelled')
end

--- `$/progress` of the run: "EXPLORE · step 2/24 · find_symbol".
function M.on_progress(client, value)
  local run = M.running
  if not run or run.client ~= client then
    return
  end
  local message = value.message or value.title
  if value.kind == 'report' and message then
    append({ '- ' .. message })
    status.set_agent(message:match('step %d+/%d+') or message)
  end
end

--- A nudge as a quote: "> nudge (planning): …", every line of it quoted.
function M.on_nudge(nudge)
  if M.running then
    local text = ('nudge (%s): %s'):format(tostring(nudge.type), tostring(nudge.text))
    append(vim.tbl_map(function(line)
      return '> ' .. line
    end, scratch.lines(text)))
  end
end

return M
