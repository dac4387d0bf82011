/**
 * isolated-vm's documentation requires Node 20 and later to run with `--no-node-snapshot`: V8's
 * startup snapshot and isolated-vm's isolates do not mix, and the failure is a crash inside an
 * isolate, not an error. Every way of starting vcsync passes the flag (the `vcsync` bin's shebang,
 * `npm start`, the image's entrypoint, tests and benchmarks); this check makes any other way fail
 * at once with the fix instead of later with a crash.
 */
export const REQUIRED_NODE_FLAG = '--no-node-snapshot';

/** True when this process runs with {@link REQUIRED_NODE_FLAG}, on the command line or in NODE_OPTIONS. */
export function hasRequiredNodeFlag(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.includes(REQUIRED_NODE_FLAG) || (nodeOptions ?? '').split(/\s+/).includes(REQUIRED_NODE_FLAG);
}

/** The message printed when the flag is missing: what is wrong, why, and what to run instead. */
export function missingNodeFlagMessage(): string {
  return (
    `vcsync: Node.js must run with ${REQUIRED_NODE_FLAG} (isolated-vm, the patch sandbox, requires it on Node 20 and later).\n` +
    `Start vcsync with the \`vcsync\` command (npx vcsync …), with \`node ${REQUIRED_NODE_FLAG} dist/cli/main.js …\`, ` +
    `or set NODE_OPTIONS=${REQUIRED_NODE_FLAG}.\n`
  );
}
