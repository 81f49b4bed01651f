const { src, dest } = require('gulp');

/** Copies node/credential icons and codex files next to the compiled JavaScript in dist/ (or AML_BUILD_OUT: test/unit/builtDescriptions.test.ts builds into a folder of its own). */
function buildAssets() {
  return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}', 'icons/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest(process.env.AML_BUILD_OUT || 'dist'));
}

exports['build:assets'] = buildAssets;
