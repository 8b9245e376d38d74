import assert from 'node:assert/strict';
import { isReleaseNotes, releaseNotesStage } from '../../../server/src/engine/ranking/stages/releaseNotes';
import { chunk, candidate, stageContext } from '../../support/chunks';

const section = (path: string) => chunk({ kind: 'section', name: '4.7.0 / 2014-07-25', path, language: 'markdown', content: '* Add support for `process.env.NODE_ENV` in the default configuration' });
const code = chunk({ kind: 'function', name: 'defaultConfiguration', path: 'lib/application.js', language: 'javascript', content: "var env = process.env.NODE_ENV || 'development';" });

describe('release notes rank below code for questions that are not about releases', () => {
  it('knows release-notes files by name and folder, and nothing else', () => {
    for (const p of ['History.md', 'CHANGELOG.md', 'docs/CHANGES.rst', 'NEWS', 'RELEASE-NOTES.md', 'changelog.txt', 'CHANGELOG-1.x.md', 'docs/releases/v6.2.0.rst', 'releases/v4.1.0.rst.txt', 'changelog/2024.md']) assert.ok(isReleaseNotes(p), p);
    for (const p of ['lib/history.js', 'src/news/feed.ts', 'README.md', 'docs/guide/migrating.md', 'lib/changes.py', 'src/releases/publish.go']) assert.equal(isReleaseNotes(p), false, p);
  });

  it('halves a release-notes section for an ordinary question, with a line saying why', () => {
    const notes = candidate(section('History.md'), 10);
    const fn = candidate(code, 6);
    releaseNotesStage.apply(stageContext('find all places that read environment variables'), [notes, fn]);
    assert.equal(notes.score, 5);
    assert.equal(fn.score, 6);
    assert.match(notes.explanation.join('\n'), /release notes \(the question is not about versions or changes\)/);
  });

  it('leaves them alone for questions about versions and changes, and for identifiers', () => {
    for (const q of ['what changed in 4.7', 'when was res.sendfile deprecated', 'breaking changes of the last major version', 'release notes for the router', 'NODE_ENV']) {
      const notes = candidate(section('History.md'), 10);
      releaseNotesStage.apply(stageContext(q), [notes, candidate(code, 6)]);
      assert.equal(notes.score, 10, q);
    }
  });
});
