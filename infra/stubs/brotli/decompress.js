/**
 * Stands in for `brotli/decompress.js` in the bundles of chart-rendering functions (see
 * CHART_BUNDLE_ALIASES in infra/bundling.ts). fontkit only calls it to read WOFF2 fonts, and those
 * functions embed TTF fonts only, so the 460 KB decoder and its dictionary are never needed.
 */
module.exports = function decompress() {
  throw new Error('WOFF2 fonts are not supported here: ship TTF fonts (brotli is stubbed in this bundle)');
};
