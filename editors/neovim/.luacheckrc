-- luacheck (Debian's lua-check) over the plugin: Neovim's LuaJIT, `vim` the one global.
-- stylua keeps code within 100 columns; a message string may run a little past it.
std = 'luajit'
globals = { 'vim' }
max_line_length = 120
