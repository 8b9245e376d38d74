import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { chunkFile } from './server/src/engine/chunking';
import { defaultConfig } from './server/src/engine/config/schema';
import { lexicalDocForChunk } from './server/src/engine/indexer/lexicalDoc';
(async () => {
  const files = execSync('find /root/.pyenv/versions/3.11.7/lib/python3.11/asyncio /root/.pyenv/versions/3.11.7/lib/python3.11/email /root/.pyenv/versions/3.11.7/lib/python3.11/json -name "*.py"').toString().trim().split('\n');
  const cfg = defaultConfig().chunking;
  let bytes = 0, chunks = 0; const t0 = Date.now(); let tLex = 0;
  for (const f of files) { const text = readFileSync(f, 'utf8'); bytes += text.length; const cs = await chunkFile({ path: f, language: 'python', content: text }, cfg); chunks += cs.length; const t = Date.now(); cs.forEach(lexicalDocForChunk); tLex += Date.now() - t; }
  const ms = Date.now() - t0;
  console.log(files.length, 'files', (bytes/1e6).toFixed(2), 'MB', chunks, 'chunks', ms, 'ms', (bytes/1e6/(ms/1000)).toFixed(2), 'MB/s', 'lexdoc ms', tLex);
})();
