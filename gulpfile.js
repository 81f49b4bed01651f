const { src, dest } = require('gulp');

/** Copies node/credential icons and codex files next to the compiled JavaScript in dist/. */
function buildAssets() {
  return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}', 'icons/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:assets'] = buildAssets;
