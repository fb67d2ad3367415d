import { describe, expect, expectTypeOf, it } from 'vitest';
import type { GroupHandlers, Handler, HandlerTable } from '../../../infra/local/emulator/handlers/types.js';
import { HANDLERS } from '../../../infra/local/emulator/server.js';
import { type OperationId, operations } from '../../../lib/api/operations/index.js';

// The compiler (tsc --noEmit in `npm test`) checks the type assertions: the emulator used to find
// a missing handler only when it started.
describe("the emulator's handler table", () => {
  it('is keyed by exactly the operation ids of the table', () => {
    expectTypeOf<keyof HandlerTable>().toEqualTypeOf<OperationId>();
    expectTypeOf(HANDLERS).toEqualTypeOf<HandlerTable>();
    expect(Object.keys(HANDLERS).sort()).toEqual(operations.map((op) => op.id).sort());
  });

  it('does not compile with a handler missing or an id the table lacks', () => {
    const handler: Handler = () => ({ kind: 'no-content' });
    // @ts-expect-error images.delete has no handler
    const missing: GroupHandlers<'images'> = {
      'images.list': handler,
      'images.create': handler,
      'images.upload': handler,
      'images.view': handler,
      'images.update': handler,
    };
    const unknown: GroupHandlers<'images'> = {
      ...missing,
      'images.delete': handler,
      // @ts-expect-error images.rename is not an operation of the table
      'images.rename': handler,
    };
    expect(Object.keys(unknown)).toContain('images.rename');
    expect(Object.keys(HANDLERS)).not.toContain('images.rename');
  });
});
