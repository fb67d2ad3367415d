/**
 * What a first read loads beyond the agents' function's start, as one module: the tools' answers
 * (`tool-answers.ts`) and the repositories a read uses (the person's token, the channel's policy,
 * the audit). The agents' function makes those repositories from here (`createStore`'s
 * `loaded.readPath`) rather than each from its own module, and its build puts this module and
 * what only it reaches in one file (`infra/build.ts`): a read's first answer waited on about
 * fifteen files loaded one after another. The called operation's rows load beside it, started
 * with the start's `loadOperationAhead`.
 */
export { AuditLogRepository } from '../store/audit-log.js';
export { ChannelPolicyRepository } from '../store/channel-policy.js';
export { TokenLinkRepository } from '../store/token-links.js';
export * from './tool-answers.js';
