/**
 * "Did you mean" for mistyped group, action and flag names.
 */

/**
 * Optimal string alignment distance (Damerau-Levenshtein restricted to adjacent transpositions):
 * the typos people make in commands are dropped, doubled, swapped or wrong letters.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    const row = d[i];
    if (row === undefined) continue;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      row[j] = best;
    }
  }
  return at(rows - 1, cols - 1);
}

/** How many edits still count as a typo of a word this long. */
function typoAllowance(length: number): number {
  if (length <= 3) return 1;
  if (length <= 7) return 2;
  return 3;
}

/**
 * The candidates closest to `input`, best first: near misses by edit distance, candidates that
 * start with what was typed (`issues` → `issues-list`), and for longer input candidates that
 * contain it (`backup-restore` → `mysql-backup-restore`). Ties keep the candidates' order.
 */
export function suggest(input: string, candidates: Iterable<string>, limit = 4): string[] {
  const typed = input.toLowerCase();
  if (typed.length === 0) return [];
  const scored: { candidate: string; score: number; order: number }[] = [];
  let order = 0;
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (seen.has(candidate)) continue;
    seen.add(candidate);
    const name = candidate.toLowerCase();
    let score = Number.POSITIVE_INFINITY;
    // The distance is at least the difference in length: a pasted 100 KB word is never measured.
    const allowance = typoAllowance(typed.length);
    if (Math.abs(typed.length - name.length) <= allowance) {
      const distance = editDistance(typed, name);
      if (distance <= allowance) score = distance;
    }
    if (typed.length >= 2 && name.startsWith(typed)) score = Math.min(score, 1);
    if (typed.length >= 3 && name.includes(typed)) score = Math.min(score, 2);
    if (Number.isFinite(score)) scored.push({ candidate, score, order: order++ });
  }
  return scored
    .sort((x, y) => x.score - y.score || x.order - y.order)
    .slice(0, limit)
    .map((s) => s.candidate);
}

/** ` Did you mean a or b?`, or nothing when there is no suggestion. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const quoted = suggestions.map((s) => `\`${s}\``);
  const last = quoted.pop();
  return quoted.length === 0 ? ` Did you mean ${last}?` : ` Did you mean ${quoted.join(', ')} or ${last}?`;
}
