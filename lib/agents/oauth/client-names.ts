import { truncate } from '../../truncate.js';

/**
 * An agent's name as its client gives it (`client_name`, from DCR or a metadata document), made
 * safe to show on the consent page, on cards and in the audit: Unicode NFC, no control or format
 * characters (bidirectional overrides, zero-width joiners and the like could make one name read as
 * another), runs of white space as one space, at most 80 characters. The page escapes it as well;
 * this is about what a person reads, not about markup.
 */

export const MAX_CLIENT_NAME_LENGTH = 80;

/** Cc, Cf, line and paragraph separators, and unassigned or private-use code points. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/gu;

export function cleanClientName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const cleaned = raw
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .replace(INVISIBLE, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  return cleaned === '' ? undefined : truncate(cleaned, MAX_CLIENT_NAME_LENGTH);
}
