import assert from 'node:assert/strict';
import { z } from 'zod';
import { toolInput, unknownArgumentsMessage } from '../../../server/src/mcp/toolInput';

describe('MCP tool arguments are strict (mcp/toolInput.ts)', () => {
  const schema = toolInput({ query: z.string(), max_results: z.number().int().default(50) });

  it('accepts the declared arguments, with their defaults', () => {
    assert.deepEqual(schema.parse({ query: 'x' }), { query: 'x', max_results: 50 });
    assert.deepEqual(schema.parse({ query: 'x', max_results: 3 }), { query: 'x', max_results: 3 });
  });

  it('rejects an unknown argument, says which one the tool has for it and lists the others', () => {
    const r = schema.safeParse({ query: 'x', limit: 3 });
    assert.equal(r.success, false);
    assert.equal(r.error!.issues[0]!.message, '"limit" is not an argument of this tool (use "max_results" for "limit"); its arguments are query, max_results.');
  });

  it('names several unknown arguments at once; no hint for names that mean nothing to the tool', () => {
    assert.equal(
      unknownArgumentsMessage(['top_k', 'colour'], ['query', 'max_results']),
      '"top_k", "colour" are not arguments of this tool (use "max_results" for "top_k"); its arguments are query, max_results.',
    );
    assert.equal(unknownArgumentsMessage(['max_results'], ['query', 'limit']), '"max_results" is not an argument of this tool (use "limit" for "max_results"); its arguments are query, limit.');
    assert.equal(unknownArgumentsMessage(['verbose'], []), '"verbose" is not an argument of this tool; it takes none.');
  });

  it('keeps the other validation errors as they were', () => {
    const r = schema.safeParse({ query: 3 });
    assert.equal(r.success, false);
    assert.deepEqual(r.error!.issues[0]!.path, ['query']);
  });
});
