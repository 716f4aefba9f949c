-- :CodeKeepImpact fills the quickfix list with the diff's symbols, callers and tests.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local results, root, client, request, wait = H.results, H.root, H.client, H.request, H.wait

H.run(function()
  H.load_plugin()
  vim.lsp.config('codekeep', {
    cmd = { H.python, '-m', 'codekeep.server', '--log-level', 'WARNING' },
    root_markers = { '.git' },
  })
  vim.lsp.enable('codekeep')
  vim.cmd.edit(root .. '/pkg/geometry.py')
  wait('attached', 20000, function() return client() ~= nil and client().initialized end)
  wait('indexed', 20000, function() return request('codekeep/indexStatus', {}).ready end)
  vim.cmd('CodeKeepImpact')
  wait('quickfix from :CodeKeepImpact', 15000, function() return #vim.fn.getqflist() > 0 end)
  results.title = vim.fn.getqflist({ title = 0 }).title
  results.items = vim.tbl_map(function(item)
    return { file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t'), line = item.lnum,
             text = item.text }
  end, vim.fn.getqflist())
end)
