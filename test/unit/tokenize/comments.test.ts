import assert from 'node:assert/strict';
import { isMostlyComment, mapCode } from '../../../server/src/engine/tokenize/comments';

describe('comments in source text', () => {
  it('applies a function to the code and keeps comments, doc comments and docstrings whole', () => {
    const upper = (s: string) => s.toUpperCase();
    assert.equal(mapCode('let a = 1; // keep me\n/* and me */ b()', 'typescript', upper), 'LET A = 1; // keep me\n/* and me */ B()');
    assert.equal(mapCode('x = 1  # keep\n"""doc"""\ny', 'python', upper), 'X = 1  # keep\n"""doc"""\nY');
    assert.equal(mapCode('a # keep', 'ruby', upper), 'A # keep');
    assert.equal(mapCode('#[attr]\n$a; # c', 'php', upper), '#[ATTR]\n$A; # c');
    assert.equal(mapCode('/* never closed', 'go', upper), '/* never closed');
    assert.equal(mapCode('plain words', 'markdown', upper), 'PLAIN WORDS', 'an unknown language is all code');
  });
  it("tells prose chunks (Go's doc.go, a module docstring) from code with comments", () => {
    const para = 'This package talks to the database. It registers a driver and explains every option in detail.\n';
    assert.ok(isMostlyComment(`/*\n${para.repeat(5)}*/\npackage sqlite3\n`, 'go'));
    assert.ok(isMostlyComment(`"""${para.repeat(4)}"""\nimport os\n`, 'python'));
    assert.ok(!isMostlyComment(`// ${para}func open(name string) (*DB, error) {\n\treturn connect(name, defaultOptions())\n}\n`, 'go'));
    assert.ok(!isMostlyComment('// short\npackage x\n', 'go'), 'too short to be documentation');
    const notice = '// Copyright (C) 2019 Someone. Use of this source code is governed by an MIT-style licence found in the LICENSE file.\n'.repeat(3);
    assert.ok(!isMostlyComment(`${notice}// +build sqlite_allow_uri_authority\n\npackage sqlite3\n/*\n#cgo CFLAGS: -DX\n*/\nimport "C"\n`, 'go'), 'a licence notice is not documentation');
    assert.ok(!isMostlyComment(para.repeat(5), 'markdown'), 'not a code language');
  });
});
