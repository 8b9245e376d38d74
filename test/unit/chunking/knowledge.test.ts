/**
 * Knowledge chunks (seed 003 FR-3, §6.5): conversation logs split into one chunk per phase, UT-KNOW-01..10, plus
 * the knowledge folders (FR-3.6 / FR-10.1) and Markdown heading sections with exact line ranges.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { homedir } from 'node:os';
import { chunk } from './helpers';
import { QuarryConfigSchema } from '../../../server/src/engine/config/schema';
import { conversationChunkId, dateIn, isConversationLog, parseConversationHeader, parsePhaseHeading } from '../../../server/src/engine/chunking/conversation';
import { discoverKnowledge, knowledgeFolderPath } from '../../../server/src/engine/indexer/knowledge';
import { expandChunkTypes } from '../../../server/src/engine/ranking/query';
import type { Chunk } from '../../../server/src/engine/types';
import { removeDir, tempDir } from '../../support/workspace';

const PHASE_NAMES = ['Assessment', 'Retrieval', 'Decomposition', 'Verification', 'Routing', 'Collection', 'Synthesis', 'Recording', 'Response'];

function log(opts: { topic?: string; date?: string; query?: string; phases: Array<[string, string]> }): string {
  const head = [`# Conversation: ${opts.topic ?? 'Authentication Implementation'}`];
  if (opts.date) head.push(`Date: ${opts.date}`);
  if (opts.query) head.push(`Query: ${opts.query}`);
  return head.join('\n') + '\n\n' + opts.phases.map(([h, body]) => `## ${h}\n${body}\n`).join('\n');
}

function phases(numbers: number[]): Array<[string, string]> {
  return numbers.map((n) => [`Phase ${n}: ${PHASE_NAMES[n - 1]}`, `Notes of phase ${n} about ${PHASE_NAMES[n - 1].toLowerCase()}.`]);
}

const knowledgeChunks = (chunks: Chunk[]) => chunks.filter((c) => c.source === 'conversation');

describe('knowledge chunks: conversation logs (seed 003 FR-3)', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('quarry-knowledge-');
  });
  afterEach(() => removeDir(dir));

  /** Writes a log under the temp dir (`YYYY/MM/name`), reads it back as indexing does, and chunks it. */
  async function chunkLogFile(rel: string, content: string): Promise<Chunk[]> {
    const abs = join(dir, rel);
    mkdirSync(join(abs, '..'), { recursive: true });
    writeFileSync(abs, content, 'utf8');
    return chunk('markdown', rel, readFileSync(abs, 'utf8'));
  }

  it('UT-KNOW-01: extracts all 9 phases of a log as 9 knowledge chunks', async () => {
    const text = log({ date: '2025-12-15', query: 'How do I implement OAuth2 authentication?', phases: phases([1, 2, 3, 4, 5, 6, 7, 8, 9]) });
    const chunks = await chunkLogFile('2025/12/auth-impl-2025-12-15.md', text);
    assert.equal(chunks.length, 9, 'the header block (title, Date, Query) is metadata, not a chunk');
    const know = knowledgeChunks(chunks);
    assert.equal(know.length, 9);
    assert.deepEqual(know.map((c) => c.metadata?.phase_number), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(know.map((c) => c.metadata?.phase_name), PHASE_NAMES);
    const lines = text.split('\n');
    for (const c of know) {
      assert.equal(c.kind, 'section');
      assert.equal(c.semanticClass, 'DOCUMENTATION_STRUCTURED');
      assert.equal(c.name, `Phase ${c.metadata?.phase_number}: ${c.metadata?.phase_name}`);
      assert.equal(c.container, 'Conversation: Authentication Implementation');
      assert.equal(c.signature, `## ${c.name}`);
      assert.equal(c.metadata?.source_file, '2025/12/auth-impl-2025-12-15.md');
      assert.equal(c.metadata?.topic, 'Authentication Implementation');
      // line ranges are the file's own: the range's lines are exactly the content
      assert.equal(lines.slice(c.startLine - 1, c.endLine).join('\n'), c.content.replace(/\n$/, ''));
      assert.ok(c.content.startsWith(`## ${c.name}\n`));
    }
    assert.equal(new Set(chunks.map((c) => c.id)).size, 9, 'ids are distinct');
    assert.ok(expandChunkTypes(['knowledge'], '--type').includes(know[0].kind), '--type knowledge selects them');
  });

  it('UT-KNOW-02: a log with only phases 1, 3 and 7 gives 3 chunks, no errors', async () => {
    const chunks = await chunkLogFile('partial-2025-12-16.md', log({ date: '2025-12-16', phases: phases([1, 3, 7]) }));
    const know = knowledgeChunks(chunks);
    assert.equal(know.length, 3);
    assert.deepEqual(know.map((c) => c.symbol), ['conv-partial-2025-12-16-phase1', 'conv-partial-2025-12-16-phase3', 'conv-partial-2025-12-16-phase7']);
    assert.deepEqual(know.map((c) => c.metadata?.phase_name), ['Assessment', 'Decomposition', 'Synthesis']);
  });

  it('UT-KNOW-03: skips malformed phase headers and goes on parsing', async () => {
    const text = log({
      query: 'implement oauth',
      phases: [
        ['Phas 1: Assessment', 'Typo in the header.'],
        ['Phase 2: Retrieval', 'Retrieved twelve chunks.'],
        ['Phase two: Decomposition', 'Number spelled out.'],
        ['Phase 3: Synthesis', 'Combined the answers.'],
      ],
    });
    assert.equal(parsePhaseHeading('Phas 1: Assessment'), null);
    assert.equal(parsePhaseHeading('Phase two: Decomposition'), null);
    assert.equal(parsePhaseHeading('Phase 12abc'), null);
    assert.deepEqual(parsePhaseHeading('Phase 4 - Verification'), { number: 4, name: 'Verification' });
    assert.deepEqual(parsePhaseHeading('phase 5'), { number: 5, name: '' });
    const chunks = await chunkLogFile('malformed-2025-12-17.md', text);
    const know = knowledgeChunks(chunks);
    assert.deepEqual(know.map((c) => c.metadata?.phase_number), [2, 3]);
    assert.ok(!know.some((c) => /Typo|spelled/.test(c.content)), 'a malformed section is not part of a phase');
    // nothing of the file is lost: the malformed sections stay searchable as ordinary Markdown sections
    const plain = chunks.filter((c) => c.source === 'markdown');
    assert.deepEqual(plain.map((c) => c.symbol), [
      'Conversation: Authentication Implementation > Phas 1: Assessment',
      'Conversation: Authentication Implementation > Phase two: Decomposition',
    ]);
    assert.ok(plain.every((c) => c.metadata === undefined));
  });

  it('UT-KNOW-04: takes the conversation date from the file name', async () => {
    const chunks = await chunkLogFile('2025/12/oauth-impl-2025-12-15.md', log({ phases: phases([1]) }));
    assert.equal(knowledgeChunks(chunks)[0].metadata?.conversation_date, '2025-12-15');
    // the file name wins over the Date field (the field is the fallback)
    const both = await chunkLogFile('other-2025-12-15.md', log({ date: '2025-12-20', phases: phases([1]) }));
    assert.equal(knowledgeChunks(both)[0].metadata?.conversation_date, '2025-12-15');
    assert.equal(dateIn('oauth-impl-2025-13-45'), '', 'not a calendar date');
  });

  it('UT-KNOW-05: falls back to the Date: field of the header', async () => {
    const chunks = await chunkLogFile('oauth-impl.md', log({ date: '2025-12-20', phases: phases([1, 2]) }));
    assert.deepEqual(knowledgeChunks(chunks).map((c) => c.metadata?.conversation_date), ['2025-12-20', '2025-12-20']);
    const bold = await chunkLogFile('bold.md', '# Conversation: X\n**Date:** 2025-12-21\n\n## Phase 1: Assessment\nok\n');
    assert.equal(knowledgeChunks(bold)[0].metadata?.conversation_date, '2025-12-21');
    const none = await chunkLogFile('undated.md', log({ phases: phases([1]) }));
    assert.equal(knowledgeChunks(none)[0].metadata?.conversation_date, undefined, 'no date anywhere: no field');
  });

  it('UT-KNOW-06: an empty log file gives no chunks and no error', async () => {
    assert.deepEqual(await chunkLogFile('empty-2025-12-15.md', ''), []);
    assert.deepEqual(await chunkLogFile('blank-2025-12-15.md', '\n  \n\n'), []);
  });

  it('UT-KNOW-07: a missing logs folder gives no files and a warning', async () => {
    const config = QuarryConfigSchema.parse({ knowledge: { folders: ['.aurora/logs/conversations', 'empty-logs', '../elsewhere'] } });
    mkdirSync(join(dir, 'empty-logs'), { recursive: true });
    const found = await discoverKnowledge(dir, config);
    assert.deepEqual(found.files, []);
    assert.equal(found.warnings.length, 3);
    assert.match(found.warnings[0], /^No conversation logs found in \.aurora\/logs\/conversations\//);
    assert.match(found.warnings[1], /^No conversation logs found in empty-logs\//);
    assert.match(found.warnings[2], /^No conversation logs found in \/.*\/elsewhere\/ \(the knowledge folder does not exist\)/, 'outside folders are looked up too');
    // and once a log exists (YYYY/MM/*.md, hidden folder), it is found without a warning
    mkdirSync(join(dir, '.aurora/logs/conversations/2025/12'), { recursive: true });
    writeFileSync(join(dir, '.aurora/logs/conversations/2025/12/a-2025-12-15.md'), log({ phases: phases([1]) }));
    writeFileSync(join(dir, '.aurora/logs/conversations/2025/12/notes.txt'), 'not markdown');
    const again = await discoverKnowledge(dir, config);
    assert.deepEqual(again.files.map((f) => [f.path, f.language]), [['.aurora/logs/conversations/2025/12/a-2025-12-15.md', 'markdown']]);
    assert.equal(again.warnings.filter((w) => w.includes('.aurora')).length, 0);
  });

  it('FR-3.2: a knowledge folder outside the workspace (~ expanded) is indexed under absolute paths; one containing the workspace is refused', async () => {
    const outside = tempDir('quarry-outside-logs-');
    try {
      mkdirSync(join(outside, '2025/12'), { recursive: true });
      writeFileSync(join(outside, '2025/12/auth-2025-12-15.md'), log({ phases: phases([1, 2]) }));
      const config = QuarryConfigSchema.parse({ knowledge: { folders: [outside, '..'] } });
      const found = await discoverKnowledge(dir, config);
      const abs = join(outside, '2025/12/auth-2025-12-15.md').split(sep).join('/');
      assert.deepEqual(found.files.map((f) => f.path), [abs]);
      assert.equal(found.files[0].absPath, join(outside, '2025/12/auth-2025-12-15.md'));
      assert.ok(found.warnings.some((w) => /Knowledge folder \.\. contains the workspace/.test(w)), found.warnings.join('\n'));
      assert.equal(knowledgeFolderPath(dir, '~/notes'), join(homedir(), 'notes').split(sep).join('/'));
    } finally {
      removeDir(outside);
    }
  });

  it('UT-KNOW-08: keeps UTF-8 text (emoji, accents) intact, with exact byte offsets', async () => {
    const text = log({
      topic: 'Café déjà vu 🚀',
      query: 'Pourquoi le résumé échoue-t-il ? 🤔',
      phases: [
        ['Phase 1: Évaluation', 'Complexité élevée — naïve approach façade 😅.'],
        ['Phase 2: Récupération', 'Données 日本語 und Größe ✓.'],
      ],
    });
    const rel = 'utf8-2025-12-18.md';
    const chunks = await chunkLogFile(rel, text);
    const know = knowledgeChunks(chunks);
    assert.equal(know.length, 2);
    assert.match(know[0].content, /Complexité élevée — naïve approach façade 😅\./);
    assert.match(know[1].content, /日本語 und Größe ✓/);
    assert.equal(know[0].metadata?.phase_name, 'Évaluation');
    assert.equal(know[0].metadata?.topic, 'Café déjà vu 🚀');
    assert.equal(know[0].metadata?.query, 'Pourquoi le résumé échoue-t-il ? 🤔');
    const bytes = readFileSync(join(dir, rel));
    for (const c of know) assert.equal(bytes.subarray(c.startByte, c.endByte).toString('utf8'), c.content);
  });

  it('UT-KNOW-09: extracts the user query from the header', async () => {
    const chunks = await chunkLogFile('q-2025-12-15.md', log({ query: 'implement oauth', phases: phases([1, 2]) }));
    for (const c of knowledgeChunks(chunks)) {
      assert.equal(c.metadata?.query, 'implement oauth');
      assert.equal(c.doc, 'implement oauth', 'the query is the chunk doc, so it is searched and shown');
    }
    assert.deepEqual(parseConversationHeader('q-2025-12-15.md', log({ query: 'implement oauth', phases: [] })), {
      topic: 'Authentication Implementation',
      date: '2025-12-15',
      query: 'implement oauth',
      stem: 'q-2025-12-15',
    });
  });

  it('UT-KNOW-10: chunk ids follow conv-{filename}-phase{N}', async () => {
    const chunks = await chunkLogFile('2025/12/oauth-impl-2025-12-15.md', log({ phases: phases([1, 2, 3]) }));
    const third = knowledgeChunks(chunks).find((c) => c.metadata?.phase_number === 3)!;
    assert.equal(third.symbol, 'conv-oauth-impl-2025-12-15-phase3');
    assert.equal(conversationChunkId('logs/oauth-impl-2025-12-15.md', 3), 'conv-oauth-impl-2025-12-15-phase3');
    // Quarry's own id stays the stable hash (path + kind + symbol + ordinal): lines added to phase 1 move phase 3
    // down but keep its id
    const edited = log({ phases: [['Phase 1: Assessment', 'More notes.\n\nAnd more.\n'], ...phases([2, 3])] });
    const again = knowledgeChunks(await chunk('markdown', '2025/12/oauth-impl-2025-12-15.md', edited)).find((c) => c.metadata?.phase_number === 3)!;
    assert.ok(again.startLine > third.startLine);
    assert.equal(again.id, third.id);
  });

  it('a log without phase headers is one knowledge chunk (§6.5 fallback)', async () => {
    const text = '# Conversation: Quick question\nDate: 2025-12-19\nQuery: where is the config loaded?\n\nIt is loaded in config/load.ts.\n\n## Notes\nNothing else.\n';
    const chunks = await chunkLogFile('quick-q-2025-12-19.md', text);
    assert.equal(chunks.length, 1);
    const [c] = chunks;
    assert.equal(c.source, 'conversation');
    assert.equal(c.symbol, 'conv-quick-q-2025-12-19');
    assert.equal(c.content, text);
    assert.equal(c.startLine, 1);
    assert.equal(c.endLine, 8);
    assert.deepEqual(c.metadata, {
      source_file: 'quick-q-2025-12-19.md',
      topic: 'Quick question',
      conversation_date: '2025-12-19',
      query: 'where is the config loaded?',
    });
  });

  it('recognises logs by content, not by folder; topic falls back to the file name', async () => {
    assert.equal(isConversationLog('# Conversation: A\n\n## Phase 1: B\n'), true);
    assert.equal(isConversationLog('\n\n# Conversation:\n'), true);
    assert.equal(isConversationLog('Intro first.\n# Conversation: A\n'), false);
    assert.equal(isConversationLog('# Conversations with users\n'), false);
    assert.equal(isConversationLog('## Conversation: A\n'), false);
    const chunks = await chunkLogFile('docs/readme-like.md', '# Guide\n\n## Phase 1: Setup\nInstall it.\n');
    assert.ok(chunks.every((c) => c.source === 'markdown' && c.metadata === undefined), 'phase headings alone do not make a log');
    const untitled = await chunkLogFile('deep/dir/auth-oauth-impl-2025-12-15.md', '# Conversation:\n\n## Phase 1: Assessment\nok\n');
    assert.equal(untitled[0].metadata?.topic, 'auth-oauth-impl');
  });

  it('keeps a header with more than fields as an ordinary section and splits a long phase into windows', async () => {
    const para = (i: number) => `Paragraph ${i} ` + 'the token refresh flow retries with backoff '.repeat(12) + '\n\n';
    const text =
      '# Conversation: Long one\nDate: 2025-12-15\n\nSome preface that is not a field.\n\n## Phase 1: Assessment\n' +
      Array.from({ length: 10 }, (_, i) => para(i)).join('') +
      '## Phase 2: Retrieval\nShort.\n';
    const chunks = await chunk('markdown', 'long.md', text, { targetTokens: 300 });
    assert.equal(chunks[0].source, 'markdown');
    assert.equal(chunks[0].symbol, 'Conversation: Long one');
    const phase1 = chunks.filter((c) => c.symbol === 'conv-long-phase1');
    assert.ok(phase1.length >= 3, `${phase1.length} windows`);
    assert.ok(phase1.every((c) => c.metadata?.phase_number === 1 && c.tokenCount <= 300));
    assert.equal(new Set(chunks.map((c) => c.id)).size, chunks.length);
    assert.equal(chunks.slice(1).map((c) => c.content).join(''), text.slice(text.indexOf('## Phase 1')), 'phases cover their text exactly');
  });
});

describe('knowledge chunks: Markdown documentation', () => {
  it('splits by heading sections with the heading path as title and exact line ranges', async () => {
    const md = '# Quarry\n\nIntro.\n\n## Install\n\nnpm i.\n\n### From source\n\n```sh\n# build\nnpm run build\n```\n\n## Usage\nRun it.\n';
    const chunks = await chunk('markdown', 'README.md', md);
    assert.deepEqual(chunks.map((c) => [c.symbol, c.startLine, c.endLine]), [
      ['Quarry', 1, 4],
      ['Quarry > Install', 5, 8],
      ['Quarry > Install > From source', 9, 15],
      ['Quarry > Usage', 16, 17],
    ]);
    const lines = md.split('\n');
    for (const c of chunks) {
      assert.equal(c.kind, 'section');
      assert.equal(c.source, 'markdown');
      assert.equal(lines.slice(c.startLine - 1, c.endLine).join('\n'), c.content.replace(/\n$/, ''));
    }
    assert.equal(chunks[2].name, 'From source');
    assert.equal(chunks[2].container, 'Quarry > Install');
  });
});
