import { describe, expect, it } from 'vitest';
import {
  type EventFacts,
  eventDurationWords,
  eventSentence,
  eventStatusWords,
} from '../../../lib/slack-kit/event-words.js';
import { durationWords } from '../../../lib/slack-kit/field-words.js';

const node = { id: 12, label: 'web-1', type: 'node' };
const volume = { id: 7, label: 'data', type: 'volume' };

function facts(action: string, over: Partial<EventFacts> = {}): EventFacts {
  return { action, status: 'finished', entity: node, ...over };
}

describe('eventSentence: each event names its target and what happened to it', () => {
  it.each([
    ['node_resize', facts('node_resize'), 'node web-1 resized'],
    ['node_resize_create', facts('node_resize_create'), 'node web-1 queued for a resize'],
    ['node_reboot', facts('node_reboot'), 'node web-1 rebooted'],
    ['host_reboot', facts('host_reboot'), 'node web-1 rebooted by its host'],
    ['node_shutdown', facts('node_shutdown'), 'node web-1 shut down'],
    ['node_config_create', facts('node_config_create'), 'a configuration profile created on node web-1'],
    [
      'volume_attach',
      facts('volume_attach', {
        entity: volume,
        secondary_entity: { id: '12', label: 'web-1', type: 'node' },
      }),
      'volume data attached to node web-1',
    ],
    [
      'volume_attach without a node',
      facts('volume_attach', { entity: volume }),
      'volume data attached to a node',
    ],
    ['volume_resize', facts('volume_resize', { entity: volume }), 'volume data resized'],
    [
      'disk_create',
      facts('disk_create', { entity: { id: 12, label: 'boot', type: 'disks' } }),
      'disk boot of node 12 created',
    ],
    [
      'user_ssh_key_add',
      facts('user_ssh_key_add', { entity: { id: 57, label: 'laptop', type: 'user_ssh_key' } }),
      'SSH key laptop added',
    ],
    [
      'backups_enable',
      facts('backups_enable', { entity: { id: 12, label: 'web-1', type: 'backups' } }),
      'backups turned on for node web-1',
    ],
    [
      'account_update',
      facts('account_update', { entity: { type: 'account' } }),
      'the account details updated',
    ],
    [
      'dns_record_create',
      facts('dns_record_create', { entity: { id: 3, label: 'example.com', type: 'domain' } }),
      'a DNS record created on domain example.com',
    ],
    ['an action the enum does not list yet', facts('quantum_flux'), 'node web-1 quantum flux'],
  ])('%s', (_name, event, words) => {
    expect(eventSentence(event).plain).toBe(words);
  });

  it.each([
    ['started', 'node web-1 is being resized'],
    ['scheduled', 'node web-1 will be resized'],
    ['failed', 'node web-1 could not be resized'],
    ['finished', 'node web-1 resized'],
  ])('puts a %s event in its tense', (status, words) => {
    expect(eventSentence(facts('node_resize', { status })).plain).toBe(words);
  });

  it('bolds the labels and escapes what the API wrote', () => {
    expect(eventSentence(facts('node_resize')).mrkdwn).toBe('node *web-1* resized');
    const hostile = eventSentence(facts('node_resize', { entity: { ...node, label: '<!channel> *x*' } }));
    expect(hostile.mrkdwn).not.toContain('<!channel>');
    expect(hostile.mrkdwn).toBe('node *&lt;!channel&gt; ∗x∗* resized');
  });
});

describe('eventStatusWords: statuses as words', () => {
  it.each([
    ['finished', ':white_check_mark: done'],
    ['failed', ':x: failed'],
    ['scheduled', ':calendar: scheduled'],
    ['notification', ':bell: notice'],
  ])('%s', (status, words) => {
    expect(eventStatusWords({ status })).toBe(words);
  });

  it('says how far a started event got', () => {
    expect(eventStatusWords({ status: 'started', percent_complete: 40 })).toBe(
      ':arrows_counterclockwise: in progress, 40% done',
    );
  });
});

describe('durations with units', () => {
  it.each([
    [0, '0 s'],
    [10, '10 s'],
    [125, '2 min 5 s'],
    [300.56, '5 min 1 s'],
    [3600, '1 h'],
    [3725, '1 h 2 min'],
    [93_600, '1 d 2 h'],
  ])('%s seconds read %s', (seconds, words) => {
    expect(durationWords(seconds)).toBe(words);
  });

  it('says nothing of the duration of an event still under way', () => {
    expect(eventDurationWords({ status: 'started', duration: 0 })).toBeUndefined();
    expect(eventDurationWords({ status: 'finished', duration: 10 })).toBe('took 10 s');
  });
});
