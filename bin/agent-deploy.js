#!/usr/bin/env node
// The CLI runs TypeScript directly through Node's built-in type stripping (Node >= 24).
// `npm ci` installs Node 24 into node_modules/.bin, which npx and npm scripts put first on PATH.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `agent-deploy needs Node.js 24 or newer; this is ${process.version}.\n` +
      'Run it through npm (npx agent-deploy …, npm start), which uses the Node 24 that `npm ci` installs, or install Node 24.\n',
  );
  process.exit(1);
}
await import('../src/cli/main.ts');
