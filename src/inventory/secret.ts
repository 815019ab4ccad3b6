// A credential read from the inventory: it prints, logs and serialises as "[redacted]"; and the rules that
// say which keys and values are credentials, for the inventory, the logger and every JSON the daemon serves.

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The only way to read the value; call it where the secret is handed to a node, nowhere else. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspectSymbol](): string {
    return 'Secret([redacted])';
  }
}

/**
 * Key names that hold credentials in contrail-ansible-deployer inventories (instances.yaml, kolla_passwords,
 * provider_config) and in what the daemon itself handles. Redacting a harmless key costs a line of display;
 * missing one costs a password, so the rules are wide: `bypass` would be redacted too.
 */
export const SECRET_KEY_RULES: readonly { pattern: RegExp; example: string }[] = [
  // *_PASSWORD, *_PASS (ansible_become_pass, ansible_ssh_pass), password, kolla_passwd, *_passphrase
  { pattern: /pass(word|wd|phrase)?$/i, example: 'KEYSTONE_AUTH_ADMIN_PASSWORD, ansible_become_pass' },
  { pattern: /(^|_)pwd$/i, example: 'ssh_pwd' },
  { pattern: /secret/i, example: 'metadata_secret, horizon_secret_key, METADATA_PROXY_SECRET' },
  { pattern: /token/i, example: 'etcd_cluster_token, auth_token' },
  { pattern: /private_?key/i, example: 'ssh_private_key, private_key, PRIVATE_KEY_DATA' },
  { pattern: /(^|_)(ssh|rndc|crypto|decrypt|access|api|encryption)_key$/i, example: 'nova_ssh_key, designate_rndc_key, ec2_access_key' },
  { pattern: /^(authorization|cookie|x-gitlab-token|x-hub-signature(-256)?|x-signature)$/i, example: 'authorization' },
];

// Every JSON answer and log line is redacted: the same few keys come by again and again (10,000 node records
// have the same twenty), so each key's verdict is kept rather than tested against every rule each time.
const verdicts = new Map<string, boolean>();

/** Keys whose values are credentials; see SECRET_KEY_RULES. */
export function isSecretKey(key: string): boolean {
  let secret = verdicts.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY_RULES.some((rule) => rule.pattern.test(key));
    // Bounded: keys come from the inventory and the daemon, but a hostile repo could name many.
    if (verdicts.size < 10_000) verdicts.set(key, secret);
  }
  return secret;
}

/** A private key pasted inline (PEM, OpenSSH or PuTTY), whatever key it sits under (`*_KEY: |` blocks). */
export function looksLikePrivateKey(value: string): boolean {
  // The plain search first: almost no string holds either marker, and the regex is the slower test.
  if (!value.includes('PRIVATE KEY-----') && !value.includes('PuTTY-User-Key-File-')) return false;
  return /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|PuTTY-User-Key-File-/.test(value);
}

export const REDACTED = '[redacted]';

/**
 * A copy of plain data with the value of every secret key (and every inline private key) replaced by
 * "[redacted]". Class instances (errors, Secrets) are kept as they are: they serialise themselves.
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (depth > 32 || value === null || typeof value !== 'object') {
    return (typeof value === 'string' && looksLikePrivateKey(value) ? REDACTED : value) as T;
  }
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1)) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = v !== null && v !== undefined && isSecretKey(k) ? REDACTED : redactSecrets(v, depth + 1);
  return out as T;
}
