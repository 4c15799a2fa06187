/**
 * The two ways a command fails. The exit code tells scripts whether to fix the command line (2) or look at the
 * gateway (1), so each failure is raised as the class that carries its code rather than as a bare Error.
 */

/** The command line or the environment is wrong; nothing was sent. Exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The gateway could not be reached, refused the request, or answered in a shape the CLI cannot read. Exit 1. */
export class AdminRequestError extends Error {
  override readonly name = 'AdminRequestError';
}
