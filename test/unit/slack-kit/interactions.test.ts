import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { loginPrompt } from '../../../lib/slack/token-resolution.js';
import {
  ActionId,
  ApprovalPayloadSchema,
  decodeActionValue,
  ExportPayloadSchema,
  encodeActionValue,
  PAGE_POSITION_MAX,
  type PagePayload,
  PagePayloadSchema,
  RunPayloadSchema,
} from '../../../lib/slack-kit/interactions.js';
import { SLACK_LIMITS } from '../../../lib/slack-kit/limits.js';

/**
 * Button and menu values: the code on both sides names the fields, the wire spells them with one
 * letter each (a value holds 2,000 characters, a menu option's 150), and the values of cards
 * already posted decode as they always did.
 */

describe('encodeActionValue', () => {
  it('writes named fields with their one-letter wire keys', () => {
    expect(encodeActionValue({ operationId: 'volumes.view', input: { volumeId: 12 } })).toBe(
      '{"o":"volumes.view","i":{"volumeId":12}}',
    );
    const page: PagePayload = {
      operationId: 'nodes.list',
      input: {},
      filter: { region: 'us-east' },
      compact: true,
      page: 3,
      start: 200,
      previousStart: 100,
    };
    expect(encodeActionValue(page)).toBe(
      '{"o":"nodes.list","i":{},"f":{"region":"us-east"},"c":1,"p":3,"k":200,"b":100}',
    );
    expect(encodeActionValue({ approvalId: 'a1b2c3' })).toBe('{"a":"a1b2c3"}');
  });

  it('refuses a field it has no wire key for, instead of sending a value nothing decodes', () => {
    const spread = { operationId: 'volumes.view', input: {}, options: { all: true } };
    expect(() => encodeActionValue(spread)).toThrow('no wire key for the payload field "options"');
  });

  it('decodes what it encodes, for every kind of payload', () => {
    const run = { operationId: 'volumes.view', input: { volumeId: 12 } };
    const page: PagePayload = {
      operationId: 'volumes.list',
      input: {},
      page: 2,
      start: 20,
      previousStart: 0,
    };
    const file = { operationId: 'nodes.list', input: {}, filter: { label: 'web' }, format: 'csv' as const };
    expect(decodeActionValue(RunPayloadSchema, encodeActionValue(run))).toEqual(run);
    expect(decodeActionValue(PagePayloadSchema, encodeActionValue(page))).toEqual(page);
    expect(decodeActionValue(ExportPayloadSchema, encodeActionValue(file))).toEqual(file);
    expect(decodeActionValue(ApprovalPayloadSchema, encodeActionValue({ approvalId: 'ap-1' }))).toEqual({
      approvalId: 'ap-1',
    });
  });
});

describe('values of cards posted before the fields had names', () => {
  // Values exactly as the renderers wrote them into messages already in channels.
  it.each([
    [
      'a View button',
      RunPayloadSchema,
      '{"o":"volumes.view","i":{"volumeId":13}}',
      { operationId: 'volumes.view', input: { volumeId: 13 } },
    ],
    [
      'a Next button of an --all list',
      PagePayloadSchema,
      '{"o":"nodes.list","i":{},"c":1,"p":2,"k":100,"b":0}',
      { operationId: 'nodes.list', input: {}, compact: true, page: 2, start: 100, previousStart: 0 },
    ],
    [
      'a Previous button with a filter',
      PagePayloadSchema,
      '{"o":"volumes.list","i":{},"f":{"label":"db"},"p":1,"k":0}',
      { operationId: 'volumes.list', input: {}, filter: { label: 'db' }, page: 1, start: 0 },
    ],
    [
      'a CSV button',
      ExportPayloadSchema,
      '{"o":"nodes.list","i":{},"x":"csv"}',
      { operationId: 'nodes.list', input: {}, format: 'csv' },
    ],
    ['an Approve button', ApprovalPayloadSchema, '{"a":"a1b2c3"}', { approvalId: 'a1b2c3' }],
  ] as const)('%s still decodes', (_element, schema, value, named) => {
    expect(decodeActionValue(schema, value)).toEqual(named);
  });

  it('a Log in button carries no value (its listener never read one, so old ones work as before)', () => {
    const actions = loginPrompt('Run `/cloud login` first.').blocks.find((b) => b.type === 'actions');
    const button = actions?.type === 'actions' ? actions.elements[0] : undefined;
    expect(button).toMatchObject({ type: 'button', action_id: ActionId.login });
    expect(button && 'value' in button).toBe(false);
  });

  it('names on the wire are not what the bot writes, so they are refused like any forged value', () => {
    expect(
      decodeActionValue(RunPayloadSchema, '{"operationId":"volumes.view","input":{"volumeId":13}}'),
    ).toBeUndefined();
  });
});

describe('the longest values the renderers make still fit', () => {
  /** Ids as long as the API's (10 digits), and Boot's extra `config_id`, on every operation. */
  const inputOf = (pathParams: readonly string[]) =>
    Object.fromEntries([...pathParams, 'config_id'].map((name) => [name, 9_999_999_999]));

  it(`a row menu's option for any operation stays within ${SLACK_LIMITS.optionValue} characters`, () => {
    const longest = Math.max(
      ...operations.map(
        (op) => encodeActionValue({ operationId: op.id, input: inputOf(op.pathParams) }).length,
      ),
    );
    expect(longest).toBeLessThanOrEqual(SLACK_LIMITS.optionValue);
  });

  it(`a paging or file button of any list, with a filter, stays within ${SLACK_LIMITS.buttonValue} characters`, () => {
    const filter = { label: { '+contains': 'x'.repeat(64) }, '+order_by': 'label', '+order': 'desc' };
    const lengths = operations
      .filter((op) => op.paginated)
      .flatMap((op) => {
        const input = inputOf(op.pathParams);
        const page = PAGE_POSITION_MAX;
        return [
          encodeActionValue({
            operationId: op.id,
            input,
            filter,
            compact: true,
            page,
            start: page,
            previousStart: page,
          }),
          encodeActionValue({ operationId: op.id, input, filter, format: 'json' }),
        ].map((value) => value.length);
      });
    expect(Math.max(...lengths)).toBeLessThanOrEqual(SLACK_LIMITS.buttonValue);
  });
});
