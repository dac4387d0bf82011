#!/usr/bin/env node
// No `--no-node-snapshot` here: only the patch sandbox's worker processes load isolated-vm, which
// needs it, and they are forked with it (src/patches/patch-sandbox.ts). This process starts from
// Node's startup snapshot, which saves about a quarter of the CPU of loading the CLI.
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv);
