-- Real Neovim's own call/type hierarchy commands against `codekeep serve`:
-- vim.lsp.buf.incoming_calls / outgoing_calls / typehierarchy fill the quickfix list,
-- which is written to $CK_OUT as JSON. Every wait is bounded.
local root = assert(os.getenv('CK_ROOT'))
local out = assert(os.getenv('CK_OUT'))
local seen = {}

local function until_true(label, predicate)
  if not vim.wait(15000, predicate, 20) then
    error('timed out: ' .. label)
  end
end

local function codekeep()
  return vim.lsp.get_clients({ name = 'codekeep' })[1]
end

-- Run one hierarchy command with the cursor on `needle` and keep the quickfix entries.
local function hierarchy(label, needle, command)
  vim.fn.setqflist({}, 'r')
  vim.fn.cursor(1, 1)
  assert(vim.fn.search(needle) > 0, needle .. ' not found')
  command()
  until_true(label, function() return #vim.fn.getqflist() > 0 end)
  seen[label] = vim.tbl_map(function(item)
    return { file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t'), line = item.lnum,
             text = item.text }
  end, vim.fn.getqflist())
  vim.cmd.cclose()
end

local ok, problem = pcall(function()
  vim.lsp.config('codekeep', {
    cmd = { assert(os.getenv('CK_PYTHON')), '-m', 'codekeep.server', '--log-level', 'WARNING' },
    root_markers = { '.git' },
    filetypes = { 'python' },
  })
  vim.lsp.enable('codekeep')
  vim.cmd('filetype on')
  vim.cmd.edit(root .. '/pkg/geometry.py')
  until_true('attached', function() return codekeep() ~= nil and codekeep().initialized end)
  until_true('indexed', function()
    local reply = codekeep():request_sync('codekeep/indexStatus', {}, 5000, 0)
    return reply ~= nil and reply.result ~= nil and reply.result.ready
  end)
  hierarchy('incoming', [[def \zstotal_area]], vim.lsp.buf.incoming_calls)
  vim.cmd.edit(root .. '/pkg/app.py')
  until_true('app attached', function()
    return #vim.lsp.get_clients({ name = 'codekeep', bufnr = 0 }) > 0
  end)
  hierarchy('outgoing', [[def \zsmain]], vim.lsp.buf.outgoing_calls)
  vim.cmd.edit(root .. '/pkg/geometry.py')
  hierarchy('supertypes', [[class \zsCircle]], function() vim.lsp.buf.typehierarchy('supertypes') end)
end)
if not ok then
  seen.error = tostring(problem)
end
local file = assert(io.open(out, 'w'))
file:write(vim.json.encode(seen))
file:close()
vim.cmd('qall!')
