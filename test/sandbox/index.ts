import {
	DEMO_CLIENT_ID,
	DEMO_CLIENT_SECRET,
	SandboxServer,
	type Sandbox,
	type SandboxOptions,
} from './server';

export { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, SandboxServer, type Sandbox, type SandboxOptions };
export { DEMO_CUSTOM_LIST_ID, DEMO_GOODLIST_ID } from './seed';

/** Starts the sandbox on 127.0.0.1 (port 0 = a free port). `server` gives in-process access (tests only). */
export async function startSandbox(
	options: SandboxOptions = {},
): Promise<Sandbox & { server: SandboxServer }> {
	const server = new SandboxServer(options);
	const { port } = await server.listen(options.port ?? 0);
	const baseUrl = `http://127.0.0.1:${port}`;
	return {
		port,
		baseUrl,
		tokenUrl: `${baseUrl}/oauth/token`,
		controlUrl: `${baseUrl}/_control`,
		clientId: DEMO_CLIENT_ID,
		clientSecret: DEMO_CLIENT_SECRET,
		server,
		close: () => server.close(),
	};
}
