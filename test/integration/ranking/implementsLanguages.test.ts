import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { copyFixture, removeDir, tempDir, writeFiles } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

/**
 * "What implements X" in Kotlin and C# (test/fixtures/implements/README.md): every implementation in the top 5 — the
 * direct ones first, the definition in the top 3, the indirect ones (through a sub-interface or a superclass) next —
 * and the sub-interface and usage sites after them, in every phrasing and in both configurations.
 */
const FIXTURES = [
  {
    language: 'kotlin', iface: 'EvictionPolicy', sub: 'DescribedPolicy',
    direct: ['LruPolicy', 'FifoPolicy', 'NoEviction'], indirect: ['RandomPolicy', 'PinningFifoPolicy'], usages: ['BoundedCache', 'policyNamed'],
  },
  {
    language: 'csharp', iface: 'IEvictionPolicy', sub: 'IDescribedPolicy',
    direct: ['LruPolicy', 'FifoPolicy', 'NoEviction'], indirect: ['RandomPolicy', 'PinningFifoPolicy'], usages: ['BoundedCache', 'PolicyNamed'],
  },
];
const PHRASINGS = ['what implements {X}', '{X} implementations', 'classes that implement {X}', 'which types implement the {X} interface'];

const bare = (m: CodeMatch) => m.content.symbol.split(/\.|::/).pop()!;

for (const cfg of RANKING_CONFIGURATIONS) for (const f of FIXTURES) {
  describe(`what implements X in ${f.language} (${cfg.label})`, function () {
    this.timeout(120_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = copyFixture(`implements/${f.language}`);
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    for (const phrasing of PHRASINGS) {
      it(`"${phrasing}": direct implementations in the top 5, indirect ones right after them, the definition in the top 3`, async () => {
        const query = phrasing.replace('{X}', f.iface);
        const res = await engine.search(query, { limit: 10, explain: true });
        const names = res.matches.map(bare);
        const rank = (n: string) => names.indexOf(n);
        const list = names.join(', ');
        for (const n of [...f.direct, ...f.indirect]) assert.ok(rank(n) >= 0 && rank(n) < (f.direct.length + f.indirect.length + 1), `${n} not in the top ${f.direct.length + f.indirect.length + 1}: ${list}`);
        for (const n of f.direct) assert.ok(rank(n) < 5, `${n} (direct) not in the top 5: ${list}`);
        assert.ok(rank(f.iface) >= 0 && rank(f.iface) < 3, `the definition of ${f.iface} not in the top 3: ${list}`);
        const lastDirect = Math.max(...f.direct.map(rank));
        for (const n of f.indirect) assert.ok(rank(n) > lastDirect, `${n} (indirect) ranks above a direct implementation: ${list}`);
        const lastImpl = Math.max(...[...f.direct, ...f.indirect].map(rank));
        for (const n of [f.sub, ...f.usages]) if (rank(n) >= 0) assert.ok(rank(n) > lastImpl, `${n} (not an implementation) ranks above an implementation: ${list}`);
        const random = res.matches.find((m) => bare(m) === 'RandomPolicy')!;
        assert.ok(random.explanation.some((l) => l.includes(`through ${f.sub}`) || l.includes(`${f.sub}, which conforms to ${f.iface}`)), random.explanation.join('\n'));
      });
    }
  });
}

/**
 * A qualified target whose last name another class shares (Ruby's lexical constant lookup): `class AuditLog <
 * Middleware` inside `Relay::Response`, where `Relay::Response::Middleware` is declared, extends that class — an
 * implementation of `Relay::Middleware` through it, after the direct ones; a `Middleware` of another module is none.
 */
const RELAY = {
  'lib/relay/middleware.rb': 'module Relay\n  # Base of every middleware in the stack.\n  class Middleware\n    def initialize(app)\n      @app = app\n    end\n\n    def call(env)\n      @app.call(env)\n    end\n  end\nend\n',
  'lib/relay/request/throttle.rb': 'module Relay\n  module Request\n    # Waits a little between requests.\n    class Throttle < Relay::Middleware\n      def call(env)\n        sleep(0.01)\n        super\n      end\n    end\n  end\nend\n',
  'lib/relay/request/signer.rb': 'module Relay\n  module Request\n    # Signs each request with a shared key.\n    class Signer < Middleware\n      def call(env)\n        env[:signature] = sign(env)\n        super\n      end\n    end\n  end\nend\n',
  'lib/relay/response.rb': 'module Relay\n  class Response\n    # Base of the middleware that only looks at responses.\n    class Middleware < Relay::Middleware\n      def call(env)\n        @app.call(env).tap { |r| on_complete(r) }\n      end\n    end\n  end\nend\n',
  'lib/relay/response/audit_log.rb': 'module Relay\n  class Response\n    # Writes every response status to the audit log.\n    class AuditLog < Middleware\n      def on_complete(response)\n        AUDIT.puts(response.status)\n      end\n    end\n  end\nend\n',
  'lib/relay/response/status_check.rb': 'module Relay\n  class Response\n    # Raises on a 4xx or 5xx status.\n    class StatusCheck < Middleware\n      def on_complete(response)\n        raise StatusError, response.status if response.status >= 400\n      end\n    end\n  end\nend\n',
  'lib/rackish/middleware.rb': 'module Rackish\n  # Another library\'s middleware base, with the same name.\n  class Middleware\n    def call(env); end\n  end\n\n  # Serves files; a Rackish middleware, not a Relay one.\n  class Static < Middleware\n    def call(env)\n      File.read(env[:path])\n    end\n  end\nend\n',
};

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`what implements a qualified Ruby class whose name another class shares (${cfg.label})`, function () {
    this.timeout(120_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = tempDir('quarry-relay-');
      writeFiles(root, RELAY);
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    it('"classes that extend Relay::Middleware": the direct subclasses, then those of Relay::Response::Middleware, not Rackish\'s', async () => {
      const res = await engine.search('classes that extend Relay::Middleware', { limit: 10, explain: true });
      const names = res.matches.map((m) => m.content.symbol);
      const rank = (s: string) => names.indexOf(s);
      const list = names.join(', ');
      const direct = ['Relay.Request.Throttle', 'Relay.Request.Signer', 'Relay.Response.Middleware'];
      const indirect = ['Relay.Response.AuditLog', 'Relay.Response.StatusCheck'];
      for (const s of [...direct, ...indirect]) assert.ok(rank(s) >= 0 && rank(s) < 6, `${s} not in the top 6: ${list}`);
      for (const d of direct) for (const i of indirect) assert.ok(rank(d) < rank(i), `${d} (direct) after ${i}: ${list}`);
      assert.ok(rank('Relay.Middleware') >= 0 && rank('Relay.Middleware') < 3, `the definition not in the top 3: ${list}`);
      if (rank('Rackish.Static') >= 0) assert.ok(rank('Rackish.Static') > Math.max(...indirect.map(rank)), `Rackish.Static among the implementations: ${list}`);
      const audit = res.matches.find((m) => m.content.symbol === 'Relay.Response.AuditLog')!;
      assert.ok(audit.explanation.some((l) => l.includes('extends Relay.Response.Middleware')), audit.explanation.join('\n'));
    });
  });
}
