/**
 * The ids of the bot's interactive elements, shared by the renderers and the listeners
 * (`interactions.ts` holds the payload contract), and the encoding of a payload. Apart from the
 * payload schemas so the listeners and renderers load without them (and zod) before a cold
 * start's first answer.
 */
export const ActionId = {
  /** Run an operation with the given input (view a row, next step buttons). */
  run: 'op:run',
  /** Show another page of a list. */
  page: 'op:page',
  /** Send a whole list as a file (CSV or JSON) to the clicker's direct message with the app. */
  exportList: 'op:export',
  /** An overflow menu whose options each carry a run payload. */
  menu: 'op:menu',
  approve: 'approval:approve',
  deny: 'approval:deny',
  cancel: 'approval:cancel',
  /** Open the login modal (from an error that says "log in first"). */
  login: 'bot:login',
} as const;

export const CallbackId = {
  login: 'login',
  operationForm: 'op:form',
} as const;

/** Matches a contract action id with or without the suffix `actionsBlock` adds (`op:run`, `op:run:2`). */
export function actionIdPattern(actionId: string): RegExp {
  return new RegExp(`^${actionId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?::\\d+)?$`);
}

/** A payload of `interactions.ts` (typed there, by its schemas) as a button's value. */
export function encodeActionValue(payload: object): string {
  return JSON.stringify(payload);
}
