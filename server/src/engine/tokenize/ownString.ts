/**
 * A copy of `s` that does not keep a larger string alive: a word or line cut from a chunk's or file's text shares
 * that text's memory, and a memo keyed by it would hold every text it was cut from (measured: 22 MB for 50,000
 * remembered words of the Go tree's first 2,000 files).
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}
