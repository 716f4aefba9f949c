-- Memory from Neovim: :CodeKeepRemember, :CodeKeepRecall (+ <CR>, :CodeKeepNotThis,
-- :CodeKeepForget), :CodeKeepNotes with diagnostics after a save.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

H.run(function()
  H.start()
  local geometry = H.open('pkg/geometry.py')

  -- Remember, linked to the file and the symbol under the cursor.
  vim.api.nvim_win_set_cursor(0, { vim.fn.search('def total_area'), 4 })
  R.added = H.note_of('CodeKeepRemember total_area must stay a pure function')
  R.again = H.note_of('CodeKeepRemember total_area must stay a pure function')
  R.secret = H.note_of('CodeKeepRemember the deploy token is ghp_' .. string.rep('a1B2', 9))
  R.only_secret = H.note_of('CodeKeepRemember ghp_' .. string.rep('c3D4', 9))
  R.empty = H.note_of('CodeKeepRemember   ')

  -- Recall into the scratch buffer; <CR> on the linked file opens it.
  vim.cmd('enew')
  vim.cmd('CodeKeepRecall is total_area pure')
  H.wait('recall buffer', 10000, function()
    return vim.api.nvim_buf_get_name(0) == 'codekeep://recall'
  end)
  local recall = vim.api.nvim_get_current_buf()
  R.recall = H.lines(recall)
  local file_line = vim.fn.search('→ pkg/geometry.py')
  vim.api.nvim_win_set_cursor(0, { file_line, 0 })
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
  R.opened = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':.')
  R.opened_same_buffer = vim.api.nvim_get_current_buf() == geometry

  -- Not this / forget on the memory under the cursor (in the recall buffer only).
  R.not_in_recall = H.note_of('CodeKeepNotThis')
  vim.api.nvim_set_current_win(vim.fn.bufwinid(recall))
  vim.api.nvim_win_set_cursor(0, { file_line - 1, 0 })
  R.not_this = H.note_of('CodeKeepNotThis')
  R.after_not_this = H.lines(recall)
  R.forget = H.note_of('CodeKeepForget')
  R.after_forget = H.lines(recall)
  R.not_this_by_id = H.note_of('CodeKeepNotThis ' .. R.secret.message:match('ADD (%S+):'))
  R.after_not_this_by_id = H.lines(recall)
  R.forget_unknown = H.note_of('CodeKeepForget p000000000000')
  R.recall_nothing = H.note_of('CodeKeepRecall zebra migration schedule')
  R.stated = H.note_of('CodeKeepRemember tests run with pytest -q')
  R.superseded = H.note_of('CodeKeepRemember tests run with pytest -x')

  -- The project's docs: :CodeKeepDocs fills the quickfix list, <CR> opens the section.
  local question = 'how do we deploy static files'
  H.wait('docs indexed', 20000, function()
    return #H.request('codekeep/docs/search', { query = question }).results > 0
  end)
  vim.cmd.buffer(geometry) -- its file is the search's focus
  vim.cmd('CodeKeepDocs ' .. question)
  H.wait('docs in the quickfix list', 10000, function()
    return vim.fn.getqflist({ title = 0 }).title == 'CodeKeep docs ' .. question
  end)
  R.docs = vim.tbl_map(function(item)
    return { file = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':.'), lnum = item.lnum,
             text = item.text }
  end, vim.fn.getqflist())
  vim.api.nvim_set_current_win(vim.fn.getqflist({ winid = 0 }).winid)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
  R.docs_opened = { file = vim.fn.expand('%:.'), line = vim.api.nvim_get_current_line() }
  vim.cmd('cclose')
  R.docs_empty = H.note_of('CodeKeepDocs  ')
  R.docs_nothing = H.note_of('CodeKeepDocs zebra quagga okapi')

  -- MEMORY.md: created from the template, saved with a bad line -> a diagnostic.
  R.notes_opened = H.note_of('CodeKeepNotes')
  local notes = vim.api.nvim_get_current_buf()
  R.notes_name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(notes), ':.')
  R.notes_template = H.text(notes)
  R.notes_attached = vim.lsp.buf_is_attached(notes, H.client().id)
  vim.api.nvim_buf_set_lines(notes, 0, -1, false, {
    '## Preferences', '- test_command: pytest -q', '- colour: teal', '', '## Notes', '',
    'The geometry package must not import numpy.',
  })
  vim.cmd('silent write')
  H.wait('diagnostic on the bad line', 10000, function()
    return #vim.diagnostic.get(notes) > 0
  end)
  local diagnostic = vim.diagnostic.get(notes)[1]
  R.diagnostic = { lnum = diagnostic.lnum, message = diagnostic.message,
                   severity = diagnostic.severity }
  R.preferences = H.request('codekeep/memory/list', { kinds = { 'preference' } }).memories
  vim.api.nvim_buf_set_lines(notes, 2, 3, false, {})
  vim.cmd('silent write')
  H.wait('diagnostics cleared', 10000, function() return #vim.diagnostic.get(notes) == 0 end)
  vim.cmd.buffer(geometry)
  local before = #H.notes
  vim.cmd('CodeKeepNotes')
  H.wait('MEMORY.md again', 10000, function() return vim.api.nvim_get_current_buf() == notes end)
  vim.wait(200, function() return false end, 20)
  R.notes_again = vim.list_slice(H.notes, before + 1) -- nothing to say: it exists, all valid
  R.note_recalled = H.request('codekeep/memory/recall', { query = 'numpy import' }).memories
end)
