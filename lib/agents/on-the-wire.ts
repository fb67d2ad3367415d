import { setImmediate } from 'node:timers/promises';

/**
 * Lets work just started reach the network before the caller holds the thread: one turn of the
 * event loop for its own steps up to opening a connection, a second for the connection to open and
 * the request to be written. About a tenth of a millisecond when nothing else is waiting; in a cold
 * process the SDK's first request then runs for tens of milliseconds without a turn, and a write
 * started just before it would only leave after it.
 */
export async function onTheWire(): Promise<void> {
  await setImmediate();
  await setImmediate();
}
