/** Adds to a per-key tally kept in a plain object. Safe for keys such as `constructor` or `__proto__`. */
export function tally(rec: Record<string, number>, key: string, by = 1): void {
  const prev = Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : 0;
  Object.defineProperty(rec, key, { value: prev + by, enumerable: true, writable: true, configurable: true });
}
