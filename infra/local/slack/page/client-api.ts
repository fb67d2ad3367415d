/**
 * What the sandbox page's browser script (`client/`) reads from the page server's HTTP API, as
 * types it imports through JSDoc. Kept free of imports on purpose: the script is type-checked on
 * its own with the DOM library, and importing the server's modules would pull Node's types and
 * the whole stand-in into that check. The server builds its answers with these same types
 * (`state.ts` and `commands.ts` import them under their server names), so they cannot drift.
 */

export interface ClientUser {
  readonly id: string;
  readonly name: string;
  readonly realName: string;
  readonly isBot: boolean;
  /** The person's time zone (IANA), in which the page shows `<!date^…>` tokens to them. */
  readonly tz?: string;
}

export interface ClientChannel {
  readonly id: string;
  /** Shown after `#`, or the bot's name for a direct message. */
  readonly name: string;
  readonly isIm: boolean;
}

export interface ClientFile {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly mimetype: string;
  readonly url: string;
}

export interface ClientMessage {
  readonly ts: string;
  readonly channel: string;
  readonly author: ClientUser;
  readonly text: string;
  readonly blocks: readonly unknown[];
  readonly ephemeral: boolean;
  readonly files: readonly ClientFile[];
  readonly postedAt: number;
  readonly edited: boolean;
  /** Thread replies, oldest first; empty for a reply and for a message without a thread. */
  readonly replies: readonly ClientMessage[];
}

export interface ClientView {
  readonly id: string;
  readonly hash: string;
  readonly title: string;
  readonly submit?: string;
  readonly close: string;
  readonly blocks: readonly unknown[];
}

/** The Home tab the app last published for this person (`views.publish`). */
export interface ClientHome {
  readonly id: string;
  readonly hash: string;
  readonly blocks: readonly unknown[];
}

/** A workspace of the stand-in, as the page's workspace switcher lists it. */
export interface ClientTeam {
  readonly id: string;
  readonly name: string;
  /** Whether the app is installed there; without it Slack refuses to send the app anything. */
  readonly installed: boolean;
  /** Where not installed: the bot's "Add to Slack" page for this workspace. */
  readonly installUrl?: string;
}

/** `GET /api/monitoring`: the emulator's managed services and issues, newest issue first. */
export interface ClientMonitoring {
  readonly services: readonly { readonly id: number; readonly label: string; readonly status: string }[];
  readonly issues: readonly {
    readonly id: number;
    /** The ticket's summary. */
    readonly label: string;
    readonly services: readonly number[];
    /** Whether the services' checks passed again; the API still lists it among recent issues. */
    readonly resolved: boolean;
  }[];
}

/** `GET /api/state`. */
export interface ClientState {
  /** The workspace's name. */
  readonly team: string;
  readonly teamId: string;
  readonly teams: readonly ClientTeam[];
  readonly installUrl?: string;
  readonly user: string;
  readonly channel: ClientChannel;
  readonly channels: readonly ClientChannel[];
  readonly users: readonly ClientUser[];
  readonly messages: readonly ClientMessage[];
  /** The modal on top of this person's stack, if one is open. */
  readonly view?: ClientView;
  /** The app's Home tab for this person, once the app has published one. */
  readonly home?: ClientHome;
  /** `slack_file` ids in blocks → where the page loads them. */
  readonly files: Readonly<Record<string, ClientFile>>;
}

/** What any route answers when it refuses a request. */
export interface ClientRefusal {
  readonly ok: false;
  readonly error?: string;
}

export interface ClientCompletionAction {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  /** The full usage line, starting with the slash command. */
  readonly usage: string;
}

export interface ClientCompletionTopic {
  readonly kind: 'group' | 'bot';
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly usage: string;
  readonly actions: readonly ClientCompletionAction[];
}

/** `GET /api/commands`. */
export interface ClientCompletionData {
  readonly command: string;
  readonly topics: readonly ClientCompletionTopic[];
}

/** `POST /api/command`, `/api/click`, `/api/view`, `/api/view/close`, `/api/home` and `/api/home/click`. */
export interface ClientActionResult {
  readonly ok: boolean;
  readonly durationMs?: number;
  readonly error?: string;
  readonly errors?: Readonly<Record<string, string>>;
}

/** One argument of a tool, as its input schema names it. */
export interface ClientSlackbotArgument {
  readonly name: string;
  /** The JSON Schema type (`string`, `object`, …), where the schema names one. */
  readonly type?: string;
  readonly required: boolean;
  readonly description?: string;
}

/** A tool the bot lists for the person, as the Slackbot panel offers it. */
export interface ClientSlackbotTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly readOnly: boolean;
  /** Not read-only and not marked otherwise: Slackbot asks before each call of it. */
  readonly destructive: boolean;
  readonly arguments: readonly ClientSlackbotArgument[];
}

/** `POST /api/slackbot/tools`: the tools Slackbot found for the person. */
export interface ClientSlackbotTools {
  readonly ok: true;
  readonly tools: readonly ClientSlackbotTool[];
}

/** `POST /api/slackbot/call`: what the tool answered, as Slackbot shows it. */
export interface ClientSlackbotAnswer {
  readonly ok: true;
  readonly tool: string;
  readonly isError: boolean;
  readonly text: string;
  /** The result's `_meta.slack.blocks`, when Slackbot draws them. */
  readonly blocks: readonly unknown[];
  /** Why Slackbot draws none of the blocks the tool gave. */
  readonly blocksDropped?: string;
  readonly durationMs: number;
}

/**
 * Any object inside a message's or a modal's blocks (a block, an element, a text object, an
 * option), read field by field: the page renders the kinds it knows and names the others. Every
 * field is optional because the page gets whatever the bot posted. `text` is a text object in a
 * block or element but a string in a text object, a rich text element and a markdown block, so
 * it is `unknown` and each use narrows it.
 */
export interface BlockKitObject {
  readonly type?: string;
  readonly text?: unknown;
  readonly emoji?: boolean;
  readonly block_id?: string;
  readonly action_id?: string;
  readonly elements?: readonly BlockKitObject[];
  readonly fields?: readonly BlockKitObject[];
  readonly accessory?: BlockKitObject;
  readonly element?: BlockKitObject;
  readonly label?: BlockKitObject;
  readonly hint?: BlockKitObject;
  readonly title?: BlockKitObject;
  readonly placeholder?: BlockKitObject;
  readonly confirm?: BlockKitObject;
  readonly options?: readonly BlockKitObject[];
  readonly option_groups?: readonly BlockKitObject[];
  readonly optional?: boolean;
  readonly style?: string;
  readonly url?: string;
  readonly value?: string;
  readonly image_url?: string;
  readonly alt_text?: string;
  readonly slack_file?: { readonly id?: string; readonly url?: string };
  readonly name?: string;
  readonly user_id?: string;
  readonly channel_id?: string;
  readonly multiline?: boolean;
  readonly initial_value?: string;
  readonly max_length?: number;
}
