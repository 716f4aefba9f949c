-- External agent sessions in Neovim: a Claude Code hook folds its session into the
-- ledger from another process; the statusline and :CodeKeepLedger claude-code show it
-- without a restart or a manual refresh.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

H.run(function()
  H.load_plugin()
  local codekeep = require('codekeep')
  H.start()
  H.open('pkg/geometry.py')
  H.wait('task id', 10000, function() return codekeep.task_id() ~= nil end)
  R.statusline_before = codekeep.statusline()
  -- the hook, as Claude Code starts it: its own process
  local fold = vim.system({
    assert(os.getenv('CK_PYTHON')), '-c',
    'import sys; from pathlib import Path; from codekeep.ledger import Ledger; '
      .. 'from codekeep.ledger.fold import fold_claude_code; '
      .. 'ledger = Ledger.open(Path(sys.argv[1]), start_flusher=False); '
      .. 'fold_claude_code(ledger, Path(sys.argv[2])); ledger.close()',
    H.root, assert(os.getenv('CK_TRANSCRIPT')),
  }):wait()
  R.fold_code = fold.code
  H.wait('Claude Code in the statusline', 15000, function()
    return codekeep.statusline():find('Claude Code', 1, true) ~= nil
  end)
  R.statusline_after = codekeep.statusline()
  vim.cmd('CodeKeepLedger claude-code')
  H.wait('ledger claude-code', 10000, function()
    return H.lines()[1] == 'CodeKeep ledger: Claude Code sessions'
  end)
  R.ledger = H.lines()
end)
