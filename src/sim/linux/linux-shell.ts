// What a simulated Linux host's sshd hands a command to: bash -c, over the host's model.

import type { CommandResult } from '../command-result.js';
import { BashInterpreter } from '../shells/bash/interpreter.js';
import { loadParser, ParseCache, type Parser } from '../shells/tree-sitter.js';
import { hostFiles } from './host-files.js';
import type { LinuxHost } from './linux-host.js';
import { linuxUtilities } from './utilities.js';

export class LinuxShell {
  readonly #parsed: ParseCache;

  private constructor(parser: Parser) {
    this.#parsed = new ParseCache(parser);
  }

  static async create(): Promise<LinuxShell> {
    return new LinuxShell(await loadParser('tree-sitter-bash'));
  }

  /** Runs `script` as `bash -c script` would on the host; a syntax error is bash's, exit 2. */
  run(host: LinuxHost, script: string, stdin = ''): CommandResult {
    const { tree, problem } = this.#parsed.parse(script);
    if (problem) {
      const token = problem.token.trim().split(/\s+/)[0];
      const what = token ? `syntax error near unexpected token \`${token}'` : 'syntax error: unexpected end of file';
      return { stdout: '', stderr: `bash: -c: line ${problem.line}: ${what}\n`, exitCode: 2 };
    }
    return new BashInterpreter(linuxUtilities(host), hostFiles(host), { HOSTNAME: host.state.hostname }).run(tree, stdin);
  }
}
