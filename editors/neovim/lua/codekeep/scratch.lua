--- Read-only scratch buffers for CodeKeep's answers (recall, ledger, agent, repo map):
--- one buffer per name, shown in a window at the bottom, refilled on the next use.
local M = {}

local function find(name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_name(buf) == name then
      return buf
    end
  end
  return nil
end

--- Replace the buffer's lines (it stays read-only for the user).
function M.set_lines(buf, lines, first, last)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, first or 0, last or -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- Open (or reuse) the scratch buffer `name` (e.g. "codekeep://recall") in a window,
--- fill it with `lines` and return its number. The buffer is kept when hidden.
function M.open(name, lines, filetype)
  local buf = find(name)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    vim.bo[buf].filetype = filetype or 'codekeep'
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  M.set_lines(buf, lines)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  return buf
end

--- Text as one line of a list: whitespace runs made one space, trimmed, and cut to
--- `width` characters with "…" (nil: no cut). Recall rows, docs results and quoted
--- queries are all shown this way.
function M.one_line(text, width)
  text = vim.trim((tostring(text or ''):gsub('%s+', ' ')))
  if width and #text > width then
    text = text:sub(1, width - 1) .. '…'
  end
  return text
end

--- Split text (which may hold newlines) into buffer lines; no text (nil, JSON null) is
--- one empty line.
function M.lines(text)
  return vim.split(type(text) == 'string' and text or '', '\n', { plain = true })
end

--- Open a workspace file from a scratch buffer: in the previous window when there is
--- one, else in a new window above.
function M.open_file(path)
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if previous ~= 0 and previous ~= vim.api.nvim_get_current_win() then
    vim.api.nvim_set_current_win(previous)
    vim.cmd.edit(vim.fn.fnameescape(path))
  else
    vim.cmd('aboveleft split ' .. vim.fn.fnameescape(path))
  end
end

return M
