// A tiny resource (get/test/set of one file) written the way roles are: the same code on every transport.

import type { Executor } from '../../src/dataplane/executor.js';
import { bashQuote, psQuote } from '../../src/dataplane/quote.js';

export interface FileResource {
  get(): Promise<string | undefined>;
  test(): Promise<boolean>;
  set(): Promise<void>;
}

export function fileResource(executor: Executor, dir: string, name: string, content: string): FileResource {
  const linux = executor.os === 'linux';
  const path = linux ? `${dir}/${name}` : `${dir}\\${name}`;
  // A Windows lab host starts a real pwsh per command: a second or more on a busy machine.
  const opts = { timeoutMs: linux ? 10_000 : 60_000 };
  const get = async () => {
    const script = linux
      ? `if [ -f ${bashQuote(path)} ]; then printf 'present\\n'; cat ${bashQuote(path)}; else printf 'absent\\n'; fi`
      : `if (Test-Path -LiteralPath ${psQuote(path)}) { 'present'; Get-Content -LiteralPath ${psQuote(path)} -Raw } else { 'absent' }`;
    const r = await executor.run({ script, label: `get ${name}` }, opts);
    if (r.exitCode !== 0) throw new Error(`get failed (${r.exitCode}): ${r.stderr}`);
    const [state, ...rest] = r.stdout.split(/\r?\n/);
    return state === 'present'
      ? rest
          .join('\n')
          .replace(/\r?\n$/, '')
          .replace(/\r\n/g, '\n')
      : undefined;
  };
  return {
    get,
    test: async () => (await get()) === content,
    async set() {
      // The content travels on stdin on Linux (as a secret would); on Windows it is a quoted literal.
      const r = linux
        ? await executor.run(
            { script: `mkdir -p ${bashQuote(dir)} && cat > ${bashQuote(path)}`, label: `set ${name}` },
            { ...opts, stdin: content },
          )
        : await executor.run(
            {
              script: `New-Item -ItemType Directory -Path ${psQuote(dir)} -Force | Out-Null\nSet-Content -LiteralPath ${psQuote(path)} -Value ${psQuote(content)} -NoNewline`,
              label: `set ${name}`,
            },
            opts,
          );
      if (r.exitCode !== 0) throw new Error(`set failed (${r.exitCode}): ${r.stderr}`);
    },
  };
}
