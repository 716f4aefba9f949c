-- The team scope from Neovim (the project's .codekeep/config.toml names the team
-- database): :CodeKeepRememberTeam, :CodeKeepPromote on a recalled memory, :CodeKeepTeam.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

H.run(function()
  H.start()
  H.open('pkg/geometry.py')
  vim.api.nvim_win_set_cursor(0, { vim.fn.search('def total_area'), 4 })
  R.shared = H.note_of('CodeKeepRememberTeam geometry areas are in square metres')
  if not R.shared.message:match(' ADD ') then -- no team database: every team command says so
    R.team_command = H.note_of('CodeKeepTeam')
    R.local_still = H.note_of('CodeKeepRemember total_area sums every shape in the list')
    return
  end
  R.local_added = H.note_of('CodeKeepRemember total_area sums every shape in the list')
  R.empty = H.note_of('CodeKeepRememberTeam   ')

  vim.cmd('enew')
  vim.cmd('CodeKeepRecall total_area sums every shape')
  H.wait('recall buffer', 10000, function()
    return vim.api.nvim_buf_get_name(0) == 'codekeep://recall'
  end)
  vim.api.nvim_win_set_cursor(0, { vim.fn.search('fact .*sums every shape'), 0 })
  R.promoted = H.note_of('CodeKeepPromote')
  R.promoted_again = H.note_of('CodeKeepPromote ' .. R.local_added.message:match('ADD (%S+)'))
  R.promote_team = H.note_of('CodeKeepPromote ' .. R.shared.message:match('ADD (%S+)'))

  vim.cmd('CodeKeepTeam')
  H.wait('team buffer', 10000, function()
    return vim.api.nvim_buf_get_name(0) == 'codekeep://team'
  end)
  R.team = H.lines(0)
  vim.api.nvim_win_set_cursor(0, { vim.fn.search('fact .*square metres'), 0 })
  R.not_this = H.note_of('CodeKeepNotThis')
  R.team_after = H.lines(0)
end)
