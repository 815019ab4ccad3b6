// "did you mean" hints for misspelt keys, roles and names.

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(above + 1, (prev[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return prev[b.length] ?? 0;
}

/** The closest candidate within a typo's reach (a third of the word, at least 1, at most 3 edits). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

export function didYouMean(word: string, candidates: Iterable<string>): string {
  const hint = closest(word, candidates);
  return hint === undefined ? '' : ` (did you mean "${hint}"?)`;
}
