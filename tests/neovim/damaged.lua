-- A damaged memory.db: memory commands answer in one line, the code map keeps working,
-- :checkhealth names the file.
local H = dofile(vim.fs.joinpath(assert(os.getenv('CK_TESTS')), 'harness.lua'))
local R = H.results

H.run(function()
  H.start()
  H.open('pkg/geometry.py')
  R.remember = H.notes_of('CodeKeepRemember the store is damaged', 1)
  R.recall = H.notes_of('CodeKeepRecall damaged', 1)
  vim.cmd('CodeKeepFind total_area')
  H.wait('quickfix from :CodeKeepFind', 10000, function() return #vim.fn.getqflist() > 0 end)
  R.found = vim.fn.getqflist()[1].text
  vim.cmd('cclose')
  vim.cmd('checkhealth codekeep')
  R.health = H.text()
end)
