import * as fs from 'node:fs';
import * as path from 'node:path';

/** The tested n8n versions, from test/n8nVersions.json (the one list; scripts/test.sh and install-n8n.sh read it too). */
export const TESTED_N8N = JSON.parse(
	fs.readFileSync(path.join(__dirname, '..', 'n8nVersions.json'), 'utf8'),
) as { default: string; contract: string[]; compat: string[] };

/** The n8n this test process runs on: `AML_N8N_VERSION`, else the default tested version. */
export const N8N_VERSION = process.env.AML_N8N_VERSION ?? TESTED_N8N.default;
