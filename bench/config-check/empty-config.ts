/** The control of `run.ts`: a config module that checks nothing, so only loading a module is measured. */
export function loadConfig(_env: unknown): void {}
