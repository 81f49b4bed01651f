import { describeEditorLabels } from '../harness/editorLabels';

/**
 * The labels the README names, read from the 1.x editor (Chromium, in the compat suite's n8n). The 2.x labels are read
 * on the default n8n by test/e2e/browser.test.ts.
 */
if ((process.env.AML_N8N_VERSION ?? '').startsWith('1.')) describeEditorLabels('1');
else test.skip('2.x: read by test/e2e/browser.test.ts on the default n8n', () => undefined);
