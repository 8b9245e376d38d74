/**
 * Programming abbreviations and the words they stand for, so that a description ("authentication",
 * "configuration") meets code that abbreviates (`AuthMiddleware`, `cfg`), and the other way round. Used only
 * to expand natural-language queries in the stemmed field, at a reduced weight; exact matching is untouched.
 */
const PAIRS: Array<[string, string[]]> = [
  ['authentication', ['auth', 'authn']],
  ['authenticate', ['auth']],
  ['authorization', ['auth', 'authz']],
  ['configuration', ['config', 'cfg', 'conf']],
  ['configure', ['config']],
  ['database', ['db']],
  ['initialize', ['init']],
  ['initialization', ['init']],
  ['message', ['msg']],
  ['parameter', ['param', 'params']],
  ['argument', ['arg', 'args']],
  ['directory', ['dir']],
  ['document', ['doc']],
  ['documentation', ['doc', 'docs']],
  ['request', ['req']],
  ['response', ['res', 'resp']],
  ['context', ['ctx']],
  ['connection', ['conn']],
  ['error', ['err']],
  ['exception', ['exc']],
  ['repository', ['repo']],
  ['temporary', ['tmp', 'temp']],
  ['information', ['info']],
  ['specification', ['spec']],
  ['environment', ['env']],
  ['reference', ['ref']],
  ['generate', ['gen']],
  ['calculate', ['calc']],
  ['statistics', ['stats']],
  ['application', ['app']],
  ['administrator', ['admin']],
  ['password', ['pwd', 'passwd']],
  ['number', ['num']],
  ['maximum', ['max']],
  ['minimum', ['min']],
  ['previous', ['prev']],
  ['source', ['src']],
  ['destination', ['dst', 'dest']],
  ['index', ['idx']],
  ['buffer', ['buf']],
  ['utility', ['util', 'utils']],
  ['synchronize', ['sync']],
  ['asynchronous', ['async']],
  ['attribute', ['attr']],
  ['allocate', ['alloc']],
  ['library', ['lib']],
  ['element', ['elem']],
  ['object', ['obj']],
  ['string', ['str']],
  ['character', ['char']],
  ['length', ['len']],
  ['count', ['cnt']],
  ['function', ['func', 'fn']],
  ['variable', ['var']],
  ['value', ['val']],
  ['image', ['img']],
  ['button', ['btn']],
  ['original', ['orig']],
  ['position', ['pos']],
  ['execute', ['exec']],
  ['expression', ['expr']],
  ['implementation', ['impl']],
];

const expansions = new Map<string, Set<string>>();
function link(a: string, b: string): void {
  if (!expansions.has(a)) expansions.set(a, new Set());
  expansions.get(a)!.add(b);
}
for (const [word, abbrs] of PAIRS) {
  for (const abbr of abbrs) {
    link(word, abbr);
    link(abbr, word);
  }
}

/** Other spellings of a lower-case word (its abbreviations, or the word an abbreviation stands for). */
export function expansionsOf(word: string): string[] {
  return [...(expansions.get(word) ?? [])];
}
