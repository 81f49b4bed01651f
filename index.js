// n8n loads the nodes and credentials listed under "n8n" in package.json; this entry point only
// satisfies tooling that expects a package main.
module.exports = {};
