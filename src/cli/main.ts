#!/usr/bin/env node
import { runCli } from './run-cli';

// `workspace-api org list | head`: the reader has gone, so stop quietly as other command-line tools
// do, rather than with a stack trace for the EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

runCli(process.argv.slice(2), { env: process.env, out: process.stdout, err: process.stderr }).then((code) => {
  process.exitCode = code;
});
