-- A second, independent LSP client: Neovim's built-in one (0.7 API), driving `quarry lsp --stdio`.
-- Usage: nvim --headless -u NONE -i NONE -S client.lua   with QUARRY_CLI, QUARRY_ROOT, QUARRY_OUT in the env.
local cli = os.getenv('QUARRY_CLI')
local root = os.getenv('QUARRY_ROOT')
local out = os.getenv('QUARRY_OUT')
local result = { ok = false }

local function finish()
  local f = io.open(out, 'w')
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

local client_id = vim.lsp.start_client({
  name = 'quarry',
  cmd = { 'node', cli, 'lsp', '--stdio' },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = 'fixture' } },
  init_options = { embedding = false, reranker = false },
  handlers = {
    ['window/workDoneProgress/create'] = function() return vim.NIL end,
  },
})
if not client_id then
  result.error = 'start_client failed'
  finish()
  return
end

local client
local ok = vim.wait(30000, function()
  client = vim.lsp.get_client_by_id(client_id)
  return client ~= nil and client.initialized
end, 100)
if not ok then
  result.error = 'not initialized'
  finish()
  return
end

-- The first find waits for the start-up index; retry until it answers with matches.
local find
vim.wait(60000, function()
  local resp = client.request_sync('codeSearch/find', { query = 'RestockBatcher', limit = 3 }, 20000)
  if resp and resp.result and resp.result.matches and #resp.result.matches > 0 then
    find = resp.result
    return true
  end
  return false
end, 500)
local symbols = client.request_sync('workspace/symbol', { query = 'OrderSummaryPanel' }, 20000)

result.find = find and { symbol = find.matches[1].content.symbol, path = find.matches[1].file.path } or vim.NIL
result.symbol = (symbols and symbols.result and symbols.result[1]) and { name = symbols.result[1].name, kind = symbols.result[1].kind } or vim.NIL
result.ok = find ~= nil and symbols ~= nil
client.stop()
vim.wait(5000, function() return client.is_stopped() end, 100)
finish()
