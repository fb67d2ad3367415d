import { documentRuleErrors } from './document-rules.js';
import { EmulatorError } from './errors.js';
import { type PublishedOperation, parsePublishedInput, type RawRequest } from './published-contract.js';

/**
 * Everything the emulator checks about a request before its handler runs: the published field
 * rules (with the documents' overrides), then the documents' cross-field rules. 400 on the first
 * stage that fails, naming every field it found.
 */
export function checkedInput(published: PublishedOperation, raw: RawRequest): Record<string, unknown> {
  const input = parsePublishedInput(published, raw);
  const broken = documentRuleErrors(published.signature, input);
  if (broken.length > 0) throw new EmulatorError(400, broken);
  return input;
}
