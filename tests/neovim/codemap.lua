-- The code map from Neovim, configured by hand (vim.lsp.config + vim.lsp.enable, no
-- setup()): edits, definition, references, a file changed outside, the user commands.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local results, root, client, request, wait = H.results, H.root, H.client, H.request, H.wait

H.run(function()
  H.load_plugin()
  vim.lsp.config('codekeep', {
    cmd = { H.python, '-m', 'codekeep.server', '--log-level', 'WARNING' },
    root_markers = { '.git' },
  })
  vim.lsp.enable('codekeep')

  -- 1. Open a real file and wait for the client to attach and the index to be ready.
  vim.cmd.edit(root .. '/pkg/geometry.py')
  local buf = vim.api.nvim_get_current_buf()
  wait('attached', 20000, function() return client() ~= nil and client().initialized end)
  results.encoding = client().offset_encoding
  wait('indexed', 20000, function() return request('codekeep/indexStatus', {}).ready end)

  -- 2. Edit the buffer: add a function after the non-ASCII docstring line.
  vim.api.nvim_buf_set_lines(buf, 1, 1, false, {
    'ÉTIQUETTE = "形状"; added_const = 1',
    'def added_in_nvim(x):',
    '    return x',
  })
  results.find_added = request('codekeep/findSymbol', { name = 'added_in_nvim' })
  results.find_const = request('codekeep/findSymbol', { name = 'added_const' })

  -- 3. Go to definition with Neovim's own LSP client: from app.py's call of total_area.
  vim.cmd.edit(root .. '/pkg/app.py')
  local app = vim.api.nvim_get_current_buf()
  wait('app attached', 10000, function()
    return #vim.lsp.get_clients({ name = 'codekeep', bufnr = app }) > 0
  end)
  local call_line = vim.fn.search('total_area(circles)')
  vim.api.nvim_win_set_cursor(0, { call_line, vim.fn.col('.') + 1 })
  vim.lsp.buf.definition()
  wait('jumped to definition', 10000, function()
    return vim.api.nvim_buf_get_name(0):match('geometry%.py$') ~= nil
  end)
  local cursor = vim.api.nvim_win_get_cursor(0)
  results.definition = { file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t'),
                         line = cursor[1], col = cursor[2] }

  -- 4. References through buf_request_sync (on the definition under the cursor).
  local params = vim.lsp.util.make_position_params(0, client().offset_encoding)
  params.context = { includeDeclaration = false }
  local responses = vim.lsp.buf_request_sync(0, 'textDocument/references', params, 10000)
  results.references = {}
  for _, response in pairs(responses or {}) do
    for _, location in ipairs(response.result or {}) do
      table.insert(results.references, { uri = location.uri, line = location.range.start.line })
    end
  end

  -- 5. A file changed on disk outside the editor is picked up.
  local file = assert(io.open(root .. '/pkg/outside.py', 'w'))
  file:write('def written_outside():\n    return 1\n')
  file:close()
  wait('outside change indexed', 15000, function()
    return #request('codekeep/findSymbol', { name = 'written_outside' }).symbols == 1
  end)

  -- 6. The user commands (and a clicked code lens) fill the quickfix list / a buffer.
  vim.lsp.commands['codekeep.findReferences']({
    title = '1 reference', command = 'codekeep.findReferences',
    arguments = { { symbolId = 'pkg/geometry.py::total_area' } },
  })
  wait('quickfix from a code lens', 10000, function() return #vim.fn.getqflist() > 0 end)
  results.lens_refs = vim.fn.getqflist({ title = 0 }).title
  vim.cmd('cclose')
  vim.fn.setqflist({}, 'r')
  vim.cmd('CodeKeepFind Circle')
  wait('quickfix from :CodeKeepFind', 10000, function() return #vim.fn.getqflist() > 0 end)
  local item = vim.fn.getqflist()[1]
  results.quickfix = { text = item.text, lnum = item.lnum, col = item.col,
                       file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t') }
  vim.cmd('cclose')
  vim.cmd('CodeKeepSearch totar')
  wait('quickfix from :CodeKeepSearch', 10000, function()
    return (vim.fn.getqflist()[1] or {}).text ~= item.text
  end)
  results.search_first = vim.fn.getqflist()[1].text
  vim.cmd('cclose')
  vim.cmd('CodeKeepMap 300')
  wait('repo map buffer', 10000, function()
    return vim.api.nvim_buf_get_name(0):match('^codekeep://repo%-map') ~= nil
  end)
  results.map = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')

  -- 7. Cursor commands in a window that shows no file (here the quickfix list) say so.
  vim.cmd('copen')
  results.not_a_file = {}
  for _, command in ipairs({ 'CodeKeepRelated', 'CodeKeepRefs' }) do
    table.insert(results.not_a_file, H.note_of(command).message)
  end
end)

