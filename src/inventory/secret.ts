// A credential read from the inventory: it prints, logs and serialises as "[redacted]".

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

/** Keys whose values are credentials in contrail-ansible-deployer inventories. */
export function isSecretKey(key: string): boolean {
  return /(PASSWORD|PASSWD|_PWD|SECRET|TOKEN|PRIVATE_KEY_DATA)$/i.test(key) || /^(ssh_pwd|ansible_password)$/.test(key);
}
