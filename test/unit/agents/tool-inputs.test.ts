import { describe, expect, it } from 'vitest';
import { TOOL_INPUTS, type ToolInputName, toolInput } from '../../../lib/agents/tool-inputs.js';

/**
 * The agents' tool inputs: zod checks the arguments, and the JSON Schema `tools/list` sends is the
 * one written out ahead, which is what zod converts the schema to (test/deploy/template.test.ts
 * fails when the written file is stale).
 */

const NAMES = Object.keys(TOOL_INPUTS) as ToolInputName[];

describe('toolInput', () => {
  it.each(NAMES)('describes %s as zod converts it, without converting it', (name) => {
    const converted = TOOL_INPUTS[name]['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    expect(toolInput(name)['~standard'].jsonSchema.input({ target: 'draft-2020-12' })).toEqual(converted);
  });

  it('converts with zod for another target, and for the output', () => {
    const read = toolInput('read')['~standard'].jsonSchema;
    const zod = TOOL_INPUTS.read['~standard'].jsonSchema;
    expect(read.input({ target: 'draft-07' })).toEqual(zod.input({ target: 'draft-07' }));
    expect(read.input({ target: 'draft-07' })).not.toEqual(read.input({ target: 'draft-2020-12' }));
    expect(read.output({ target: 'draft-2020-12' })).toEqual(zod.output({ target: 'draft-2020-12' }));
  });

  it('hands out a copy: changing one answer changes no later one', () => {
    const first = toolInput('get_request')['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    (first.properties as Record<string, unknown>).request_id = 'changed';
    const second = toolInput('get_request')['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    expect((second.properties as Record<string, unknown>).request_id).toEqual({
      type: 'string',
      maxLength: 100,
    });
  });

  it('validates as the zod schema does', async () => {
    const validate = toolInput('read')['~standard'].validate;
    expect(await validate({ operation: 'volumes.list' })).toEqual({ value: { operation: 'volumes.list' } });
    const refused = await validate({ operation: 'volumes.list', page: 0 });
    expect(refused.issues?.map((issue) => issue.path)).toEqual([['page']]);
    // An own `__proto__` key, as JSON.parse makes it, is not a field of the tool: dropped.
    const hostile = await validate(JSON.parse('{"__proto__":{"operation":"x"},"operation":"y"}'));
    expect(hostile).toEqual({ value: { operation: 'y' } });
    expect((await validate({ operation: 'x'.repeat(101) })).issues).toHaveLength(1);
  });
});
