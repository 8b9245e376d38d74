import { strict as assert } from 'node:assert';
import { chunk, bySymbol } from './helpers';
import { modulePathNames } from '../../../server/src/engine/chunking/context';
import { codeView, documentView } from '../../../server/src/engine/embedding/views';

/** A method body long enough that the class is split into a declaration unit and member units. */
const filler = (n: number) => Array.from({ length: n }, (_, i) => `    const step${i} = input.length * ${i} + offset;`).join('\n');

const TS = `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cache, type Entry, evict, measure, prune } from './cache';
import * as zlib from 'node:zlib';

export class SegmentStore extends BaseStore implements Cache {
  load(input: string, offset: number): Entry {
    const raw = readFileSync(input);
${filler(40)}
    return zlib.gunzipSync(raw) as unknown as Entry;
  }

  names(parts: string[], offset: number): string {
    const input = parts;
${filler(40)}
    return parts.join(', ');
  }
}

export function locate(dir: string): string {
  return join(dir, 'segments');
}
`;

describe('chunking: unit context (issue 18)', () => {
  it('a member of a split class carries its parent signature and only the imports it uses', async () => {
    const chunks = await chunk('typescript', 'src/store.ts', TS);
    const load = bySymbol(chunks, 'SegmentStore.load');
    assert.equal(load.context?.parent, 'export class SegmentStore extends BaseStore implements Cache');
    assert.deepEqual(load.context?.imports, ["import { readFileSync } from 'node:fs'", "import { Entry } from './cache'", "import * as zlib from 'node:zlib';"]);
    // `parts.join(...)` names a member, not the imported `join`
    const names = bySymbol(chunks, 'SegmentStore.names');
    assert.equal(names.context?.parent, 'export class SegmentStore extends BaseStore implements Cache');
    assert.equal(names.context?.imports, undefined);
    const locate = bySymbol(chunks, 'locate');
    assert.equal(locate.context?.parent, undefined);
    assert.deepEqual(locate.context?.imports, ["import { join } from 'node:path'"]);
  });

  it('the glue unit that holds the imports does not repeat them', async () => {
    const chunks = await chunk('typescript', 'src/store.ts', TS);
    for (const c of chunks.filter((c) => c.content.includes("from 'node:fs'"))) assert.equal(c.context?.imports, undefined, c.symbol);
  });

  it('Go: one entry per import spec, named after its package or alias; methods carry their type', async () => {
    const go = `package store

import (
\t"fmt"
\tjson "encoding/json"
\t"github.com/mattn/go-sqlite3"
\t"net/http"
)

type Server struct {
\taddr string
}

func (s *Server) Serve(w http.ResponseWriter) error {
\treturn json.NewEncoder(w).Encode(s.addr)
}

func Describe(v int) string {
\treturn fmt.Sprint(v, sqlite3.ErrBusy)
}
`;
    const chunks = await chunk('go', 'store/server.go', go);
    const serve = bySymbol(chunks, 'Server.Serve');
    assert.equal(serve.context?.parent, 'type Server struct');
    assert.deepEqual(serve.context?.imports, ['import json "encoding/json"', 'import "net/http"']);
    assert.deepEqual(bySymbol(chunks, 'Describe').context?.imports, ['import "fmt"', 'import "github.com/mattn/go-sqlite3"']);
  });

  it('Python: a from-import of many names shows the names the unit uses', async () => {
    // (the imports merge into the first definition's unit, which then shows them itself)
    const py = `from typing import Optional, Callable, Union, Tuple
import os.path


def first():
    return 1


def resolve(name: Optional[str]) -> str:
    return os.path.join("/tmp", name or "")
`;
    const chunks = await chunk('python', 'pkg/resolve.py', py);
    assert.deepEqual(bySymbol(chunks, 'resolve').context?.imports, ['from typing import Optional', 'import os.path']);
  });

  it('JavaScript: CommonJS requires count as imports', async () => {
    const js = `'use strict'
const fp = require('fastify-plugin')
const { kSchemas, kHooks } = require('./symbols')
const http = require('node:http')

function register (instance, opts) {
  instance[kHooks].add(fp(opts))
}

function statusOf (code) {
  return http.STATUS_CODES[code] + kSchemas
}
`;
    const chunks = await chunk('javascript', 'lib/route.js', js);
    assert.deepEqual(bySymbol(chunks, 'statusOf').context?.imports, ["const { kSchemas } = require('./symbols')", "const http = require('node:http')"]);
  });

  it('contentHash covers the context: an import change re-embeds the units that use it, and only those', async () => {
    const before = await chunk('typescript', 'src/store.ts', TS);
    const after = await chunk('typescript', 'src/store.ts', TS.replace("from 'node:path'", "from 'node:path/posix'"));
    assert.equal(bySymbol(before, 'locate').content, bySymbol(after, 'locate').content);
    assert.notEqual(bySymbol(before, 'locate').contentHash, bySymbol(after, 'locate').contentHash);
    assert.equal(bySymbol(before, 'SegmentStore.load').contentHash, bySymbol(after, 'SegmentStore.load').contentHash);
  });

  it('the embedded views include the context', async () => {
    const load = bySymbol(await chunk('typescript', 'src/store.ts', TS), 'SegmentStore.load');
    const code = codeView(load);
    assert.match(code, /^\/\/ src\/store\.ts\n\/\/ in export class SegmentStore extends BaseStore implements Cache\nimport \{ readFileSync \} from 'node:fs'\n/);
    assert.match(documentView(load, { maxChars: 4000 }), /in export class segment store extends base store implements cache\. .*uses import read file sync from 'node:fs', import Entry from '. cache'/is);
  });

  it('module paths name their packages as code refers to them', () => {
    assert.deepEqual(modulePathNames('net/http'), ['http']);
    assert.deepEqual(modulePathNames('github.com/mattn/go-sqlite3'), ['sqlite3', 'go_sqlite3']);
    assert.deepEqual(modulePathNames('gopkg.in/yaml.v3'), ['yaml']);
    assert.deepEqual(modulePathNames('example.com/mod/v2'), ['mod']);
    assert.deepEqual(modulePathNames('./store/chunkStore'), ['chunkStore']);
  });
});
