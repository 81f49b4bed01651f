/**
 * jest's default order (slowest first, failed first), except that files named `secrets.test.ts` run last: the
 * faults suite's secret scan searches every execution and log line the other files of the run produced.
 */
const Sequencer = require('@jest/test-sequencer').default;

class LastSecretsSequencer extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		const last = (t) => (/[\\/]secrets\.test\.ts$/.test(t.path) ? 1 : 0);
		return [...sorted].sort((a, b) => last(a) - last(b));
	}
}

module.exports = LastSecretsSequencer;
