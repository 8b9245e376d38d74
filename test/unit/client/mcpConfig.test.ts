import assert from 'node:assert/strict';
import { httpConfigSnippet, serverNames, stdioConfigSnippet } from '../../../client/src/mcpConfig';

describe('VS Code client: MCP config snippets', () => {
  it('stdio: the extension\'s own CLI with `mcp --project <folder>`, one server per folder', () => {
    const one = JSON.parse(stdioConfigSnippet('/ext', [{ name: 'shop', path: '/work/shop' }]));
    assert.deepEqual(one, { mcpServers: { quarry: { command: 'node', args: ['--liftoff-only', '--max-semi-space-size=4', '/ext/dist/cli.js', 'mcp', '--project', '/work/shop'] } } });
    const two = JSON.parse(stdioConfigSnippet('/ext', [{ name: 'Web App', path: '/a' }, { name: 'api', path: '/b' }]));
    assert.deepEqual(Object.keys(two.mcpServers), ['quarry-web-app', 'quarry-api']);
    assert.equal(two.mcpServers['quarry-api'].args.at(-1), '/b');
  });

  it('HTTP: type http, the URL and the bearer token header (Claude Code and Cursor read the same shape)', () => {
    const cfg = JSON.parse(httpConfigSnippet([{ name: 'shop', url: 'http://127.0.0.1:4000/mcp', token: 'tok' }]));
    assert.deepEqual(cfg, { mcpServers: { quarry: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok' } } } });
  });

  it('server names stay unique for folders with the same name', () => {
    assert.deepEqual(serverNames(['app', 'app', '***']), ['quarry-app', 'quarry-app-2', 'quarry-3']);
  });
});
