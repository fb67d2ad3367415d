import { type Logger, LogLevel } from '@slack/web-api';

/** A `WebClient` logger that says nothing: the stand-in's refusals are what the tests assert. */
export const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};
