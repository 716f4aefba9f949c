-- :checkhealth codekeep at once after opening the first file: the client may not be
-- initialized yet and the index not built; the report must say so, never an error.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

H.run(function()
  H.start()
  vim.cmd.edit(vim.fs.joinpath(H.root, 'pkg/geometry.py'))
  H.wait('a client', 20000, function() return H.client() ~= nil end)
  R.initialized_before = H.client().initialized
  vim.cmd('checkhealth codekeep')
  R.health = H.text()
end)
