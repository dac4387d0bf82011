/**
 * The text printed for an error that ends a command. Errors from the project's catalogues carry
 * a stable string `code` and a message written for the user (what was wrong, where, what to do):
 * those print as `vcsync: <message>`. Anything else is a bug, and prints with its stack so it can
 * be reported.
 */
export function describeFatalError(error: unknown): string {
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') {
    return `vcsync: ${error.message}\n`;
  }
  if (error instanceof Error) return `vcsync: unexpected error: ${error.stack ?? error.message}\n`;
  return `vcsync: unexpected error: ${String(error)}\n`;
}
