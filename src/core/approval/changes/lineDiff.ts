/**
 * Line-based +/- counts for the change-set card, from the length of a shortest edit script
 * (Myers' O((N+M)D) greedy algorithm): added = lines only in the new text, removed = lines only
 * in the old one, the same figures `git diff --numstat` gives for typical edits.
 */

/** How many lines an edit adds and removes. */
export interface LineCounts {
  added: number;
  removed: number;
}

/**
 * Beyond this many differing lines the exact algorithm's cost (quadratic in the distance) is not
 * worth it for a badge: a multiset count is used instead, which can only under-count moved lines.
 */
const DEFAULT_MAX_DISTANCE = 2000;

/** Lines with their terminators, so `a` → `a\n` and LF → CRLF count as changes, as git shows them. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

/** Counts added and removed lines between two versions of a file (null = the file does not exist). */
export function countLineChanges(before: string | null, after: string | null, maxDistance = DEFAULT_MAX_DISTANCE): LineCounts {
  const ids = new Map<string, number>();
  const intern = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  let a = splitLines(before ?? '').map(intern);
  let b = splitLines(after ?? '').map(intern);

  // Common prefix and suffix cost nothing and are most of a typical edit.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  a = a.slice(start, endA);
  b = b.slice(start, endB);
  if (a.length === 0 || b.length === 0) return { added: b.length, removed: a.length };

  const distance = myersDistance(a, b, Math.min(maxDistance, a.length + b.length));
  if (distance === undefined) return multisetCounts(a, b);
  // distance = removed + added, and added - removed = |b| - |a|.
  return { added: (distance + b.length - a.length) / 2, removed: (distance - b.length + a.length) / 2 };
}

/** Length of the shortest edit script (insertions + deletions), or undefined past `max`. */
function myersDistance(a: number[], b: number[], max: number): number | undefined {
  const n = a.length;
  const m = b.length;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d += 1) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return undefined;
}

function multisetCounts(a: number[], b: number[]): LineCounts {
  const remaining = new Map<number, number>();
  for (const line of a) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of b) {
    const count = remaining.get(line) ?? 0;
    if (count > 0) {
      remaining.set(line, count - 1);
      common += 1;
    }
  }
  return { added: b.length - common, removed: a.length - common };
}
