// Where an installed groundcrew keeps things by default (the shipped unit's directories): one place, imported by
// the CLI without loading anything else.

/** The config `groundcrew run` reads when none is named. */
export const DEFAULT_CONFIG = '/etc/groundcrew/groundcrew.yaml';
/** The token file of a daemon whose config names none, in the default state directory. */
export const DEFAULT_TOKEN_FILE = '/var/lib/groundcrew/api-token';
/** The runtime directory the shipped unit gives the daemon (`RuntimeDirectory=groundcrew`). */
export const UNIT_RUNTIME_DIR = '/run/groundcrew';
