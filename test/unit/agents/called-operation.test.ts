import { describe, expect, it } from 'vitest';
import { calledOperation } from '../../../lib/agents/tools.js';

/**
 * What the MCP endpoint looks at in a `tools/call` body before the caller's token is checked, only
 * to load the named operation's rows ahead: a short string or nothing, whatever the body holds.
 */

const call = (args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read', arguments: args } });

describe('calledOperation', () => {
  it('names the operation a read or a change asks for', () => {
    expect(calledOperation(call({ operation: 'volumes.list', arguments: {} }))).toBe('volumes.list');
  });

  it('names nothing for bodies that are not such a call', () => {
    for (const body of [
      undefined,
      '',
      'not json',
      'null',
      '[]',
      JSON.stringify([{ params: { arguments: { operation: 'volumes.list' } } }]),
      JSON.stringify({ params: null }),
      JSON.stringify({ params: { arguments: 'volumes.list' } }),
      call({ operation: 42 }),
      call({ operation: { toString: 'volumes.list' } }),
      call({}),
    ]) {
      expect(calledOperation(body)).toBeUndefined();
    }
  });

  it('takes no inherited or prototype-key fields as the operation', () => {
    expect(calledOperation('{"__proto__":{"params":{"arguments":{"operation":"volumes.list"}}}}')).toBe(
      undefined,
    );
    expect(calledOperation('{"params":{"__proto__":{"operation":"volumes.list"}}}')).toBeUndefined();
    expect(calledOperation(call({ constructor: 'volumes.list' }))).toBeUndefined();
    expect(({} as Record<string, unknown>).operation).toBeUndefined();
  });

  it('does not look into long bodies or take long names', () => {
    expect(calledOperation(call({ operation: 'volumes.list', padding: 'x'.repeat(20_000) }))).toBeUndefined();
    expect(calledOperation(call({ operation: 'x'.repeat(101) }))).toBeUndefined();
    expect(calledOperation(call({ operation: 'x'.repeat(100) }))).toBe('x'.repeat(100));
  });

  it('passes odd unicode through as a string, for the lookup to find no group in', () => {
    expect(calledOperation(call({ operation: 'vo\u200blumes.list' }))).toBe('vo\u200blumes.list');
  });
});
