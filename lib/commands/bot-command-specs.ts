import { REPORT_KIND_SPECS } from '../reports/kinds.js';
import { BURST_AT_BOUNDS, FLAP_MINUTES_BOUNDS } from '../store/report-noise-bounds.js';

/**
 * Commands of the bot itself, which are not API operations. They are declared here so that the
 * parser can check their subcommands, words and flags and help can list them; what they do is
 * implemented with the Slack handlers (`lib/slack/bot-commands/`, a file per command, routed by the
 * table in `index.ts`). Every flag and word has a kind, and the parser reads its text into that
 * kind's value (`parse/bot-values.ts`), so a handler receives ids, numbers and switches, never
 * text to check again.
 */

/**
 * What a flag or word holds. `words` is a list of lowercase words (`node_reboot,volume_delete`);
 * `people` is a list (repeat the flag or separate with commas);
 * `channel` and `usergroup` take a mention or id, or `none` (read as `null`).
 */
export type BotValueKind =
  | { readonly type: 'switch' }
  | { readonly type: 'text' }
  | { readonly type: 'on-off' }
  | { readonly type: 'count'; readonly min: number; readonly max: number }
  | { readonly type: 'minutes'; readonly min: number; readonly max: number }
  | { readonly type: 'profile' }
  | { readonly type: 'report-kind' }
  | { readonly type: 'words' }
  | { readonly type: 'people' }
  | { readonly type: 'channel' }
  | { readonly type: 'usergroup' }
  /** One of a few lowercase words (`read|change`), read in any case. */
  | { readonly type: 'choice'; readonly words: readonly string[] };

export interface BotFlag {
  /** Flag name as typed, without the dashes (`profile` for `--profile`). */
  readonly name: string;
  /** `switch` flags take no value (`--allow-self-approval`, `--no-…`); the others one each. */
  readonly kind: BotValueKind;
  /** Placeholder shown in help, e.g. `NAME`. */
  readonly placeholder?: string;
  readonly summary: string;
}

/** A positional word: its name as help shows it (`PROFILE`) and its kind; required unless `optional`. */
export interface BotArg {
  readonly name: string;
  readonly kind: BotValueKind;
  /** May be left out; only the last arguments may be. */
  readonly optional?: true;
}

export interface BotSubcommand {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Positional arguments, all required (e.g. `REPORT_ID`); none when absent. */
  readonly args?: readonly BotArg[];
  readonly flags?: readonly BotFlag[];
  /** Optional words after the required ones, kept as typed (`runbook run NAME ARGS…`). */
  readonly trailing?: { readonly name: string; readonly max: number };
}

/**
 * A declared bot command. `Name` defaults to the declared names, so the registry, the parser and
 * the Slack handler table all speak of the same closed set; the table below is checked against
 * `BotCommand<string>` because it is what defines that set.
 */
export interface BotCommand<Name extends string = BotCommandName> {
  readonly name: Name;
  readonly summary: string;
  /** One line per form, without the slash command, e.g. `login [--profile NAME]`. */
  readonly usage: readonly string[];
  readonly examples: readonly string[];
  /** When present, the first word after the command must name one of them. */
  readonly subcommands?: readonly BotSubcommand[];
  /** The subcommand the command alone runs (`agents` is `agents list`); without it, one must be named. */
  readonly defaultSubcommand?: string;
  /** Positional arguments of a command without subcommands, all required; none when absent. */
  readonly args?: readonly BotArg[];
  readonly flags?: readonly BotFlag[];
  /**
   * The answer to any word where none is expected, instead of "too many arguments": `login`
   * refuses a token typed into the command without repeating it.
   */
  readonly strayWords?: string;
}

const TEXT = { type: 'text' } as const;
const SWITCH = { type: 'switch' } as const;
const PEOPLE = { type: 'people' } as const;

const PROFILE_FLAG: BotFlag = {
  name: 'profile',
  kind: { type: 'profile' },
  placeholder: 'NAME',
  summary: 'Name of the linked token (default: `default`)',
};

const REQUIRED_APPROVALS = { type: 'count', min: 1, max: 10 } as const;
const EXPIRY_MINUTES = { type: 'minutes', min: 1, max: 1440 } as const;

const STEP_UP_FLAG: BotFlag = {
  name: 'step-up',
  kind: TEXT,
  placeholder: 'passkey|code|any|none',
  summary:
    'What Approve, Deny and break-glass need besides the click: a passkey, an authenticator code, either, or nothing',
};
const REQUIRE_REASON_FLAG: BotFlag = {
  name: 'require-reason',
  kind: { type: 'on-off' },
  placeholder: 'on|off',
  summary: 'Whether a request must say why (`--reason "…"`)',
};

const REASON_FLAG: BotFlag = {
  name: 'reason',
  kind: TEXT,
  placeholder: '"…"',
  summary: 'Why, for the approvers and the audit (required when the approval policy asks for reasons)',
};
const RUNBOOK_NAME: BotArg = { name: 'NAME', kind: TEXT };
const REPORT_ID: BotArg = { name: 'REPORT_ID', kind: TEXT };
/** `issues|alerts|stats`: from the report-kind registry, so a new kind is in usage and help. */
const REPORT_KIND_WORDS = REPORT_KIND_SPECS.map((spec) => spec.kind).join('|');
const REPORT_KIND_LIST = REPORT_KIND_SPECS.map((spec) => `\`${spec.kind}\` (${spec.usage})`).join(', ');
/** Filter flags of the kinds that take them (`--action`, `--entity` of `events`), from the registry. */
const REPORT_FILTER_FLAGS: readonly BotFlag[] = [
  ...new Map(
    REPORT_KIND_SPECS.flatMap((spec) => spec.filterFlags ?? []).map((flag) => [
      flag.name,
      {
        name: flag.name,
        kind: { type: 'words' },
        placeholder: flag.placeholder,
        summary: flag.summary,
      } satisfies BotFlag,
    ]),
  ).values(),
];
const REPORTS_ADD_USAGE = `reports add ${REPORT_KIND_WORDS} [--every INTERVAL | --daily HH:MM] [--tz ZONE]${REPORT_FILTER_FLAGS.map((flag) => ` [--${flag.name} ${flag.placeholder}]`).join('')}`;

const REPORTS_QUIET_USAGE = `reports quiet ${REPORT_ID.name} HH:MM-HH:MM|off [--tz ZONE]`;
const REPORTS_UNSNOOZE_USAGE = 'reports unsnooze issue|service ID';
const REPORTS_SET_USAGE = `reports set ${REPORT_ID.name} [--burst N] [--flap MINUTES]`;

const ALIAS_ADD_USAGE = 'alias add NAME "COMMAND with $1 $2 ..." [--workspace]';
const ALIAS_WORKSPACE_FLAG: BotFlag = {
  name: 'workspace',
  kind: SWITCH,
  summary: "The workspace's alias, for every channel (workspace admins only), not this channel's",
};

const RUNBOOK_WORKSPACE_FLAG: BotFlag = {
  name: 'workspace',
  kind: SWITCH,
  summary: "The workspace's runbook, for every channel (workspace admins only), not this channel's",
};

const DECLARED_BOT_COMMANDS = [
  {
    name: 'help',
    summary: 'Show the groups, the actions of a group, or the details of one action',
    usage: ['help [GROUP [ACTION]]'],
    examples: ['help', 'help volumes', 'help volumes attach'],
  },
  {
    name: 'login',
    summary: 'Link your personal access token (opens a private form; never paste a token in a message)',
    usage: ['login [--profile NAME]'],
    examples: ['login', 'login --profile staging'],
    flags: [PROFILE_FLAG],
    strayWords:
      ':lock: A token never goes into a command. Run `/cloud login` alone: it opens a private form for it. ' +
      'If you typed a real token, consider revoking it and creating a new one.',
  },
  {
    name: 'logout',
    summary: 'Unlink a token you linked and delete it from the bot',
    usage: ['logout [--profile NAME]'],
    examples: ['logout', 'logout --profile staging'],
    flags: [PROFILE_FLAG],
  },
  {
    name: 'whoami',
    summary: 'Show which account and scopes your linked tokens have, and which one is active',
    usage: ['whoami'],
    examples: ['whoami'],
  },
  {
    name: 'use',
    summary: 'Choose which linked token your commands run with',
    usage: ['use PROFILE'],
    examples: ['use staging'],
    args: [{ name: 'PROFILE', kind: { type: 'profile' } }],
  },
  {
    name: 'approvals',
    summary: 'List pending approval requests, or show and change who must approve destructive actions',
    usage: [
      'approvals list',
      'approvals policy [--approvers @USER ...] [--approver-group @GROUP] [--required N] [--allow-self-approval] [--expiry MINUTES]',
    ],
    examples: [
      'approvals list',
      'approvals policy',
      'approvals policy --approver-group @sre --required 2 --expiry 30',
    ],
    subcommands: [
      { name: 'list', summary: 'Pending approval requests in this workspace', usage: 'approvals list' },
      {
        name: 'policy',
        summary: 'Show the approval policy; with flags, change it (workspace admins only)',
        usage:
          'approvals policy [--approvers @USER ...] [--approver-group @GROUP] [--required N] [--allow-self-approval] [--expiry MINUTES]',
        flags: [
          {
            name: 'approvers',
            kind: PEOPLE,
            placeholder: '@USER',
            summary: 'People who may approve (repeat the flag or separate with commas)',
          },
          {
            name: 'approver-group',
            kind: { type: 'usergroup' },
            placeholder: '@GROUP',
            summary: 'A user group whose members may approve',
          },
          {
            name: 'required',
            kind: REQUIRED_APPROVALS,
            placeholder: 'N',
            summary: 'Approvals needed (1 or more; default 1)',
          },
          {
            name: 'allow-self-approval',
            kind: SWITCH,
            summary: 'Whether requesters may approve their own requests (default no)',
          },
          {
            name: 'expiry',
            kind: EXPIRY_MINUTES,
            placeholder: 'MINUTES',
            summary: 'Minutes before an unanswered request expires (default 15)',
          },
          STEP_UP_FLAG,
          REQUIRE_REASON_FLAG,
        ],
      },
    ],
  },
  {
    name: 'policy',
    summary: "Show this channel's guardrails (what may run here, who approves); admins change them",
    usage: [
      'policy',
      'policy --allow CLASSES',
      'policy --rule CLASS|OPERATION [--required N] [--approvers @USER ...] [--approver-group @GROUP] [--allow-self-approval] [--expiry MINUTES] [--step-up passkey|code|any|none] [--require-reason on|off]',
      'policy --clear-rule CLASS|OPERATION',
      'policy --allow-break-glass on|off [--break-glass-users @USER ...] [--audit-channel #CHANNEL]',
      'policy --reset',
    ],
    examples: [
      'policy',
      'policy --allow read,change',
      'policy --rule destructive --required 2 --approver-group @sre',
      'policy --rule volumes.delete --required 1',
      'policy --rule destructive --step-up code --require-reason on',
      'policy --allow-break-glass on --break-glass-users @oncall --audit-channel #audit',
    ],
    flags: [
      {
        name: 'allow',
        kind: TEXT,
        placeholder: 'CLASSES',
        summary:
          'Classes of operations this channel allows: read, change, costs, destructive (comma-separated, or `all`)',
      },
      {
        name: 'rule',
        kind: TEXT,
        placeholder: 'CLASS|OPERATION',
        summary: 'The approval rule to set: a class or an operation id such as `volumes.delete`',
      },
      { name: 'clear-rule', kind: TEXT, placeholder: 'CLASS|OPERATION', summary: 'Remove a rule' },
      {
        name: 'required',
        kind: REQUIRED_APPROVALS,
        placeholder: 'N',
        summary: 'Approvals needed under the rule',
      },
      {
        name: 'approvers',
        kind: PEOPLE,
        placeholder: '@USER',
        summary: 'People who may approve under the rule',
      },
      {
        name: 'approver-group',
        kind: { type: 'usergroup' },
        placeholder: '@GROUP',
        summary: 'A user group that may approve',
      },
      {
        name: 'allow-self-approval',
        kind: SWITCH,
        summary: 'Whether requesters may approve their own requests',
      },
      {
        name: 'expiry',
        kind: EXPIRY_MINUTES,
        placeholder: 'MINUTES',
        summary: 'Minutes before a request expires',
      },
      STEP_UP_FLAG,
      REQUIRE_REASON_FLAG,
      {
        name: 'allow-break-glass',
        kind: { type: 'on-off' },
        placeholder: 'on|off',
        summary: 'Allow break-glass in this channel',
      },
      {
        name: 'break-glass-users',
        kind: PEOPLE,
        placeholder: '@USER',
        summary: 'Who may use break-glass here',
      },
      {
        name: 'audit-channel',
        kind: { type: 'channel' },
        placeholder: '#CHANNEL',
        summary: 'Where break-glass runs are announced too',
      },
      {
        name: 'reset',
        kind: SWITCH,
        summary: "Remove this channel's policy (the workspace policy applies)",
      },
    ],
  },
  {
    name: 'reports',
    summary: `Subscribe this channel to a report: ${REPORT_KIND_SPECS.map((spec) => spec.kind).join(', ')}`,
    usage: [
      REPORTS_ADD_USAGE,
      'reports list',
      `reports remove|pause|resume|run ${REPORT_ID.name}`,
      REPORTS_QUIET_USAGE,
      REPORTS_SET_USAGE,
      'reports snoozes',
      REPORTS_UNSNOOZE_USAGE,
    ],
    examples: [
      'reports add issues --daily 09:00 --tz Europe/Berlin',
      'reports add stats --every 6h',
      'reports list',
      'reports quiet 1a2b3c4d 22:00-07:00 --tz Europe/Berlin',
      'reports set 1a2b3c4d --burst 5 --flap 30',
    ],
    subcommands: [
      {
        name: 'add',
        summary: `Subscribe this channel to a report, run with your linked token: ${REPORT_KIND_LIST}`,
        usage: REPORTS_ADD_USAGE,
        args: [{ name: 'KIND', kind: { type: 'report-kind' } }],
        flags: [
          {
            name: 'every',
            kind: TEXT,
            placeholder: 'INTERVAL',
            summary: 'Run every interval, e.g. `30m`, `1h`, `6h`',
          },
          { name: 'daily', kind: TEXT, placeholder: 'HH:MM', summary: 'Run once a day at this time' },
          {
            name: 'tz',
            kind: TEXT,
            placeholder: 'ZONE',
            summary: 'Time zone of `--daily`, e.g. `Europe/Berlin` (default UTC)',
          },
          ...REPORT_FILTER_FLAGS,
        ],
      },
      { name: 'list', summary: "This channel's report subscriptions", usage: 'reports list' },
      {
        name: 'remove',
        summary: 'Delete a subscription',
        usage: `reports remove ${REPORT_ID.name}`,
        args: [REPORT_ID],
      },
      {
        name: 'pause',
        summary: 'Stop a subscription from running for now',
        usage: `reports pause ${REPORT_ID.name}`,
        args: [REPORT_ID],
      },
      {
        name: 'resume',
        summary: 'Resume a paused subscription',
        usage: `reports resume ${REPORT_ID.name}`,
        args: [REPORT_ID],
      },
      {
        name: 'run',
        summary: 'Run a subscription now, outside its schedule',
        usage: `reports run ${REPORT_ID.name}`,
        args: [REPORT_ID],
      },
      {
        name: 'quiet',
        summary:
          'Quiet hours of an alerts or events subscription: what it finds then is held and posted as one summary when they end; `off` ends them',
        usage: REPORTS_QUIET_USAGE,
        args: [REPORT_ID, { name: 'HH:MM-HH:MM|off', kind: TEXT }],
        flags: [
          {
            name: 'tz',
            kind: TEXT,
            placeholder: 'ZONE',
            summary: 'Time zone of the quiet hours, e.g. `Europe/Berlin` (default UTC)',
          },
        ],
      },
      {
        name: 'set',
        summary:
          'How an alerts or events subscription groups a burst of new items and counts a flapping issue',
        usage: REPORTS_SET_USAGE,
        args: [REPORT_ID],
        flags: [
          {
            name: 'burst',
            kind: { type: 'count', ...BURST_AT_BOUNDS },
            placeholder: 'N',
            summary:
              'New alerts in one run at or above which they post as one message with a thread (default 3)',
          },
          {
            name: 'flap',
            kind: { type: 'minutes', ...FLAP_MINUTES_BOUNDS },
            placeholder: 'MINUTES',
            summary:
              'An issue closed and reopened within this many minutes is flapping, not new (default 60)',
          },
        ],
      },
      {
        name: 'snoozes',
        summary: "Alerts snoozed in this channel (from an alert's menu), until when and by whom",
        usage: 'reports snoozes',
      },
      {
        name: 'unsnooze',
        summary: 'End the snooze of an issue or a service in this channel',
        usage: REPORTS_UNSNOOZE_USAGE,
        args: [
          { name: 'issue|service', kind: { type: 'choice', words: ['issue', 'service'] } },
          { name: 'ID', kind: TEXT },
        ],
      },
    ],
  },
  {
    name: 'alias',
    summary:
      'Short names for operation commands, for this channel or the whole workspace: `/cloud NAME ARGS` runs one and shows what it ran',
    usage: [ALIAS_ADD_USAGE, 'alias list', 'alias remove NAME [--workspace]'],
    examples: [
      'alias add rmvol "volumes delete $1"',
      'alias add boot "nodes reboot $1" --workspace',
      'alias list',
    ],
    subcommands: [
      {
        name: 'add',
        summary:
          'Add or replace an alias: `$1` … `$9` stand for its arguments; `/cloud NAME ARGS` then runs the command under the guardrails and approvals of the channel it is typed in',
        usage: ALIAS_ADD_USAGE,
        args: [
          { name: 'NAME', kind: TEXT },
          { name: '"COMMAND"', kind: TEXT },
        ],
        flags: [ALIAS_WORKSPACE_FLAG],
      },
      { name: 'list', summary: "This channel's aliases and the workspace's", usage: 'alias list' },
      {
        name: 'remove',
        summary: 'Remove an alias',
        usage: 'alias remove NAME [--workspace]',
        args: [{ name: 'NAME', kind: TEXT }],
        flags: [ALIAS_WORKSPACE_FLAG],
      },
    ],
  },
  {
    name: 'audit',
    summary: 'Show the latest changes made through the bot in this workspace',
    usage: ['audit [--limit N]'],
    examples: ['audit', 'audit --limit 50'],
    flags: [
      {
        name: 'limit',
        kind: { type: 'count', min: 1, max: 50 },
        placeholder: 'N',
        summary: 'How many entries to show (default 20)',
      },
    ],
  },
  {
    name: 'mfa',
    summary: 'Enroll an authenticator app (or a passkey) for step-up approvals; see or reset it',
    usage: [
      'mfa enroll [code|passkey]',
      'mfa confirm CODE',
      'mfa status',
      'mfa reset [@USER] [--reason "…"]',
    ],
    examples: [
      'mfa enroll',
      'mfa confirm 123456',
      'mfa status',
      'mfa reset',
      'mfa reset @bob --reason "lost phone"',
    ],
    subcommands: [
      {
        name: 'enroll',
        summary: 'Start enrolling: shows a secret for your authenticator app, only to you',
        usage: 'mfa enroll [code|passkey]',
        args: [{ name: 'METHOD', kind: TEXT, optional: true }],
      },
      {
        name: 'confirm',
        summary: 'Confirm the enrollment with the first code your app shows',
        usage: 'mfa confirm CODE',
        args: [{ name: 'CODE', kind: TEXT }],
      },
      { name: 'status', summary: 'Whether you are enrolled', usage: 'mfa status' },
      {
        name: 'reset',
        summary:
          "Remove your enrollment; admins may ask to remove someone else's, a reviewed change (audited) that says why with `--reason`",
        usage: 'mfa reset [@USER] [--reason "…"]',
        args: [{ name: '@USER', kind: PEOPLE, optional: true }],
        flags: [REASON_FLAG],
      },
    ],
  },
  {
    name: 'agents',
    summary:
      'The agents that act for you (Claude Code, Cursor, Slackbot): list them, revoke one, let Slackbot act from this channel',
    usage: ['agents [list]', 'agents revoke N|ID', 'agents slackbot [read|change]'],
    examples: ['agents', 'agents revoke 2', 'agents slackbot change'],
    defaultSubcommand: 'list',
    subcommands: [
      {
        name: 'list',
        summary: "Your agents: each one's home channel, what it may do, since when and when it was last used",
        usage: 'agents list',
      },
      {
        name: 'revoke',
        summary:
          'Take an agent away (N from `agents list`, or its id): its sign-in and tokens stop working at once',
        usage: 'agents revoke N|ID',
        args: [{ name: 'N|ID', kind: TEXT }],
      },
      {
        name: 'slackbot',
        summary:
          'Let your Slackbot act for you with this channel as its home: `read` (the default) runs reads, `change` also asks for changes, each approved here as yours are; run it again to move its home',
        usage: 'agents slackbot [read|change]',
        args: [{ name: 'ACCESS', kind: { type: 'choice', words: ['read', 'change'] }, optional: true }],
      },
    ],
  },
  {
    name: 'settings',
    summary:
      "The workspace's settings as one document (policies, approvals, step-up, break-glass, aliases, runbooks, reports): export, import as a reviewed change, history, rollback",
    usage: [
      'settings export',
      'settings import [--reason "…"]',
      'settings history',
      'settings rollback N [--reason "…"]',
    ],
    examples: [
      'settings export',
      'settings import --reason "quarterly review"',
      'settings history',
      'settings rollback 3',
    ],
    subcommands: [
      {
        name: 'export',
        summary: 'Send the settings document (YAML) to your direct messages with the app (admins only)',
        usage: 'settings export',
      },
      {
        name: 'import',
        summary:
          'Paste a document in a form or attach it as a file: its changes are checked, shown as a card and applied once another admin approves',
        usage: 'settings import [--reason "…"]',
        flags: [REASON_FLAG],
      },
      { name: 'history', summary: 'The versions of the settings, newest first', usage: 'settings history' },
      {
        name: 'rollback',
        summary: 'Ask for version N to become the settings again (a reviewed change, like an import)',
        usage: 'settings rollback N [--reason "…"]',
        args: [{ name: 'N', kind: { type: 'count', min: 1, max: 1_000_000 } }],
        flags: [REASON_FLAG],
      },
    ],
  },
  {
    name: 'runbook',
    summary: 'Named, ordered lists of commands with `$1`…`$9` parameters, run step by step in one thread',
    usage: [
      'runbook add NAME [--steps "COMMAND; COMMAND; …"] [--workspace]',
      'runbook list',
      'runbook show NAME',
      'runbook remove NAME [--workspace]',
      'runbook run NAME [ARGS…]',
      'runbook cancel RUN_ID',
    ],
    examples: [
      'runbook add resize-node --steps "nodes shutdown $1; nodes resize $1 --type $2; nodes boot $1"',
      'runbook run resize-node 123 g6-standard-2',
      'runbook list',
    ],
    subcommands: [
      {
        name: 'add',
        summary: 'Add a runbook to this channel: a modal asks for its steps, one command a line',
        usage: 'runbook add NAME [--steps "COMMAND; COMMAND; …"] [--workspace]',
        args: [RUNBOOK_NAME],
        flags: [
          {
            name: 'steps',
            kind: TEXT,
            placeholder: '"COMMAND; …"',
            summary:
              'The steps without the modal, separated by `;` (one in a quoted value, or written `\\;`, stays in its step)',
          },
          RUNBOOK_WORKSPACE_FLAG,
        ],
      },
      { name: 'list', summary: "This channel's runbooks and the workspace's", usage: 'runbook list' },
      {
        name: 'show',
        summary: "A runbook's steps (this channel's, else the workspace's)",
        usage: 'runbook show NAME',
        args: [RUNBOOK_NAME],
      },
      {
        name: 'remove',
        summary: 'Delete a runbook',
        usage: 'runbook remove NAME [--workspace]',
        args: [RUNBOOK_NAME],
        flags: [RUNBOOK_WORKSPACE_FLAG],
      },
      {
        name: 'run',
        summary: 'Run a runbook: each step after the one before has settled, stopping at the first failure',
        usage: 'runbook run NAME [ARGS…]',
        args: [RUNBOOK_NAME],
        trailing: { name: 'ARGS', max: 9 },
      },
      {
        name: 'cancel',
        summary: 'Stop a run before its next step (a step under way finishes)',
        usage: 'runbook cancel RUN_ID',
        args: [{ name: 'RUN_ID', kind: TEXT }],
      },
    ],
  },
] as const satisfies readonly BotCommand<string>[];

/** `login`, `reports`, …: every bot command declared above, and nothing else. */
export type BotCommandName = (typeof DECLARED_BOT_COMMANDS)[number]['name'];

export const BOT_COMMANDS: readonly BotCommand[] = DECLARED_BOT_COMMANDS;
