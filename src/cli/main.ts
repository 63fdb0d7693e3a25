#!/usr/bin/env node
import { runCli } from './run-cli';

runCli(process.argv.slice(2), { env: process.env, out: process.stdout, err: process.stderr }).then((code) => {
  process.exitCode = code;
});
