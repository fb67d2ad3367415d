export { type Clock, type ClockOptions, createClock, DAY, HOUR, MINUTE, SECOND } from './clock.js';
export type { EmulatorControl } from './control.js';
export type { FaultSpec, LatencySpec } from './faults.js';
export type { RateLimitOptions, RateRule } from './rate-limit.js';
export type { SeedOptions, SeedTokens } from './seed.js';
export { type EmulatorOptions, type RunningEmulator, startEmulator } from './server.js';
