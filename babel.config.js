// Used by jest only (babel-jest): TypeScript and the ESM-only superjson / tRPC client become
// CommonJS for the test runner. `tsc` type-checks; the build uses tsc too.
module.exports = {
  presets: [['@babel/preset-env', { targets: { node: '20' } }], '@babel/preset-typescript'],
};
