import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ClientActionResult } from '../../infra/local/slack/page/client-api.js';
import type { ActionResult } from '../../infra/local/slack/page/server.js';

/**
 * The sandbox page's browser script is plain JavaScript (ES modules in `client/`) that no build
 * step reads, so nothing but `npm run typecheck` notices when it reads a field the server no longer
 * sends or an element that may be missing. These tests fail when a module of the script drops out
 * of that check, or when the check loses the DOM library, the root's strictness or its separation
 * from the server's check.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENT_DIR = resolve(ROOT, 'infra/local/slack/page/client');
const CLIENT_FILES = readdirSync(CLIENT_DIR)
  .filter((name) => name.endsWith('.js'))
  .map((name) => resolve(CLIENT_DIR, name));

function parseConfig(configPath: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`${configPath} could not be read.`);
  return parsed;
}

/** The tsconfig of each `tsc` run in the `typecheck` script: `-p <dir or file>`, else the root's. */
function typecheckConfigs(): string[] {
  const manifest = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = manifest.scripts.typecheck ?? '';
  return script
    .split('&&')
    .map((command) => command.trim().split(/\s+/))
    .filter((words) => words[0] === 'tsc')
    .map((words) => {
      const flag = words.findIndex((word) => word === '-p' || word === '--project');
      const project = resolve(ROOT, flag < 0 ? '.' : (words[flag + 1] ?? '.'));
      return project.endsWith('.json') ? project : resolve(project, 'tsconfig.json');
    });
}

const hasDom = (options: ts.CompilerOptions) => (options.lib ?? []).some((lib) => /dom/i.test(lib));

describe('the sandbox page script type-check', () => {
  it('is run by npm run typecheck with checkJs and strict on every module of client/', () => {
    expect(CLIENT_FILES).toContain(resolve(CLIENT_DIR, 'main.js'));
    const configs = typecheckConfigs().map(parseConfig);
    for (const file of CLIENT_FILES) {
      const covering = configs.filter((config) =>
        config.fileNames.map((name) => resolve(name)).includes(file),
      );
      expect(covering, file).toHaveLength(1);
      const options = covering[0]?.options ?? {};
      expect(options.checkJs, file).toBe(true);
      expect(options.noEmit, file).toBe(true);
      expect(options, file).toMatchObject({
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
      });
    }
  });

  it('checks client/ against the browser, not Node', () => {
    const page = parseConfig(resolve(ROOT, 'infra/local/slack/page/tsconfig.json'));
    expect(hasDom(page.options)).toBe(true);
    // Node's globals (`process`, `Buffer`) do not exist in the page.
    expect(page.options.types).toEqual([]);
  });

  it('keeps the DOM library out of the server code type-check', () => {
    const root = parseConfig(resolve(ROOT, 'tsconfig.json'));
    expect(typecheckConfigs()).toContain(resolve(ROOT, 'tsconfig.json'));
    expect(hasDom(root.options)).toBe(false);
  });

  it('starts every module of client/ with // @ts-check, so editors check it without the tsconfig too', () => {
    for (const file of CLIENT_FILES) {
      expect(readFileSync(file, 'utf8').split('\n')[0], file).toBe('// @ts-check');
    }
  });

  // Checked by `tsc` (the root type-check), not at run time: a field the server renames or drops
  // while client/ still reads it fails `npm run typecheck` here.
  it("holds the server's action answers to the shape client/ reads (state and completion share one type)", () => {
    expectTypeOf<ActionResult>().toExtend<ClientActionResult>();
  });
});
