// The n8n node starter's formatting (tabs, width 100); `npm run lint` checks nodes/, credentials/, test/, bench/ and
// scripts/ with it.
module.exports = {
	semi: true,
	trailingComma: 'all',
	bracketSpacing: true,
	useTabs: true,
	tabWidth: 2,
	arrowParens: 'always',
	singleQuote: true,
	quoteProps: 'as-needed',
	endOfLine: 'lf',
	printWidth: 100,
};
