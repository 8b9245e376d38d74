// Mocha reporter: mocha's "spec" output, then a last line CI can count: "N passed, N failed[, N skipped]".
'use strict';
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    runner.on(EVENT_TEST_PASS, () => passed++);
    runner.on(EVENT_TEST_FAIL, () => failed++);
    runner.on(EVENT_TEST_PENDING, () => skipped++);
    runner.once(EVENT_RUN_END, () => {
      // Spec prints its epilogue on the same event; print ours after it.
      setImmediate(() => {
        const tail = skipped ? `, ${skipped} skipped` : '';
        process.stdout.write(`${passed} passed, ${failed} failed${tail}\n`);
      });
    });
  }
}
module.exports = SummaryReporter;
