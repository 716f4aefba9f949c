--- The project's docs in Neovim: :CodeKeepDocs {query} puts the best sections in the
--- quickfix list (<CR> opens the section at its first line); the current file is the
--- search's focus, as in VS Code.
local core = require('codekeep')
local methods = require('codekeep.methods')
local codemap = require('codekeep.codemap')
local scratch = require('codekeep.scratch')

local M = {}

--- "Deploy › Static files — Run collectstatic before …" (one line of the section).
local function item_text(result)
  local first = scratch.one_line(result.text, 80)
  local heading = result.heading ~= vim.NIL and tostring(result.heading or '') or ''
  return (heading ~= '' and (heading .. ' — ') or '') .. first
end

function M.search(query)
  local client
  query, client =
    codemap.asked(query, ':CodeKeepDocs needs a question, e.g. :CodeKeepDocs how do we deploy')
  if not client then
    return
  end
  -- the current file's symbols lift the sections that name them
  local uri = core.project_uri(client, 0)
  local params = { query = query, focus = uri and { uri } or nil }
  core.request(methods.requests.docs_search, params, function(result)
    local items = {}
    for _, found in ipairs(type(result.results) == 'table' and result.results or {}) do
      table.insert(items, {
        filename = vim.uri_to_fname(found.uri),
        lnum = tonumber(found.startLine) or 1,
        end_lnum = tonumber(found.endLine),
        col = 1,
        text = item_text(found),
      })
    end
    if #items > 0 or not result.reason then -- a reason was already said
      codemap.show('CodeKeep docs ' .. query, items)
    end
  end)
end

return M
