import * as z from 'zod';
import { overLongWords } from './truncate.js';

/**
 * A text over a schema's `max` that has no words of its own is told as every over-long value is
 * (`is 5,000 characters; the most it can be is 4,000`) rather than in zod's own words ("Too big:
 * expected string to have <=4000 characters"), wherever the issue reaches a person. Anything else
 * keeps zod's message (`undefined`).
 */
function overLongIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'too_big' || issue.origin !== 'string' || typeof issue.input !== 'string')
    return undefined;
  return overLongWords(issue.input.length, Number(issue.maximum));
}

/**
 * zod's settings for the whole process, made before anything parses: every module that holds zod
 * schemas imports this module for that effect (checked by test/unit/zod-settings.test.ts).
 *
 * `jitless`: by default zod writes and compiles a parser (`new Function`) for each object schema
 * the first time it parses. A cold start parses most of its schemas once or a few times, so that
 * compiling cost more than it saved: 35–50 ms of CPU of a cold `/cloud volumes list` or login
 * (`npm run bench`). Where parsing speed matters, the API client compiles an operation's response
 * schema itself once it reads a second answer (`z.compile`, lib/api/client.ts), which this leaves
 * alone; the schemas accept and refuse exactly the same either way.
 */
z.config({ jitless: true, customError: overLongIssue });
