import { describe, expect, it, vi } from 'vitest';
import { createLogger, REDACTED } from '../../../lib/observability/logger.js';

describe('the logger', () => {
  it('never prints tokens, passwords or secrets, however deep they sit', () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const info = vi.spyOn(console, 'info').mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
    try {
      const logger = createLogger('test');
      logger.info('calling', {
        request: {
          headers: { authorization: 'Bearer tok-123456' },
          body: { root_pass: 'hunter2!!', label: 'web' },
        },
        token: 'tok-abcdef',
        link: { token_ciphertext: { data: 'c1ph3r' } },
      });
    } finally {
      spy.mockRestore();
      info.mockRestore();
    }
    const output = lines.join('\n');
    expect(output).toContain('calling');
    expect(output).toContain('web');
    expect(output).toContain(REDACTED);
    for (const secret of ['tok-123456', 'hunter2!!', 'tok-abcdef', 'c1ph3r'])
      expect(output).not.toContain(secret);
  });
});
