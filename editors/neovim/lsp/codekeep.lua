-- CodeKeep language server for Neovim 0.11+ (vim.lsp.config / vim.lsp.enable).
--
-- Put this folder on 'runtimepath' (or copy this file to ~/.config/nvim/lsp/), then:
--   vim.lsp.enable('codekeep')
-- Override anything with vim.lsp.config('codekeep', { ... }), e.g. the command or the
-- settings below (they are sent as initializationOptions and served to the server's
-- workspace/configuration requests, and can be changed without a restart).
-- The handlers show budget crossings and agent nudges through vim.notify and keep
-- require('codekeep').statusline() current (they need lua/codekeep/ on 'runtimepath').
local ok, status = pcall(require, 'codekeep.status')

---@type vim.lsp.Config
return {
  cmd = { 'codekeep', 'serve' },
  filetypes = {
    'python',
    'javascript',
    'javascriptreact',
    'typescript',
    'typescriptreact',
    'go',
    'rust',
    'java',
    'c',
    'cpp',
    'cs',
    'ruby',
    'php',
  },
  root_markers = { '.codekeep', '.git', 'pyproject.toml', 'package.json', 'go.mod', 'Cargo.toml' },
  settings = {
    codekeep = {
      exclude = {}, -- extra gitignore-style globs, e.g. { 'generated/', '*.pb.go' }
      maxFileSize = 1048576, -- bytes; larger files are not indexed
      -- languages = { 'python', 'go' },  -- index only these (default: all)
    },
  },
  handlers = ok and status.handlers or nil,
  before_init = function(params, config)
    -- Send the settings with initialize too, so the first index already honours them.
    params.initializationOptions = vim.tbl_deep_extend(
      'keep',
      params.initializationOptions or {},
      (config.settings or {}).codekeep or {}
    )
  end,
}
