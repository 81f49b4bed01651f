import { startSandbox } from './index';

function arg(name: string): string | undefined {
	const index = process.argv.indexOf(`--${name}`);
	return index >= 0 ? process.argv[index + 1] : undefined;
}

void (async () => {
	const sandbox = await startSandbox({
		port: Number(arg('port') ?? 0),
		seed: !process.argv.includes('--no-seed'),
		tokenLifetimeSeconds: arg('token-lifetime') ? Number(arg('token-lifetime')) : undefined,
	});
	console.log(
		`AML sandbox: api=${sandbox.baseUrl} token=${sandbox.tokenUrl} control=${sandbox.controlUrl} client_id=${sandbox.clientId} client_secret=${sandbox.clientSecret}`,
	);
	const stop = () => void sandbox.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
})();
