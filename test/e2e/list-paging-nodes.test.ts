import { describeEveryIdShownOnce, listApiForFile, listOperationsOf } from '../support/list-paging.js';

/**
 * Every item of every `nodes` list is reachable through Next, Previous, `--page N` and `--all`
 * (`list-paging.test.ts` says how; this area has a file of its own so that it runs beside the others).
 */

describeEveryIdShownOnce(listApiForFile(), listOperationsOf('nodes'));
