import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What the browser tests share: Debian's chromium driven by playwright-core, and the rule that in
 * CI a missing browser fails the run instead of skipping it. Each test declares the few parts of
 * playwright-core's API it uses as `P`.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface BrowserAvailability<P> {
  readonly playwright: P | undefined;
  /** Why the browser test cannot run here, or undefined when it can. */
  readonly skipReason: string | undefined;
}

export async function browserAvailability<P>(): Promise<BrowserAvailability<P>> {
  // A name in a variable: TypeScript does not look for the package, which may not be installed.
  const packageName = 'playwright-core';
  let playwright: P | undefined;
  try {
    playwright = (await import(packageName)) as P;
  } catch {
    playwright = undefined;
  }
  const skipReason =
    playwright === undefined
      ? 'playwright-core is not installed (add it to devDependencies)'
      : !existsSync(CHROMIUM)
        ? `no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`
        : undefined;
  return { playwright, skipReason };
}

/** In CI the browser test is part of the contract: a missing browser fails the run, never skips it. */
export function failInCiWithoutBrowser(title: string, skipReason: string | undefined): void {
  describe.runIf(process.env.CI !== undefined && skipReason !== undefined)(`${title}, in CI`, () => {
    it('has a browser to run in', () => {
      expect.fail(`the browser test cannot run in CI: ${skipReason}`);
    });
  });
}
