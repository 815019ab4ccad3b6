// A file written from standard input, bytes exact: the content travels base64 on stdin (a DLL or a secret does not
// belong on a command line; and text read with [Console]::In is decoded in the console's input code page, on Windows
// PowerShell 5.1 the node's OEM page, not UTF-8 (gitlab-runner !3707 met it), while base64 is ASCII in every code
// page) and Windows PowerShell 5.1's Set-Content writes the decoded bytes. A cmdlet, not
// [IO.File]::WriteAllBytes: the same bytes on a node, and a .NET static is invisible to a lab host's simulated file
// system under real pwsh (docs/simulator.md), where this reaches the host.

import { psQuote } from '../../dataplane/quote.js';

/** The script line that writes stdin's base64 to `path`. */
export function writeFromStdin(path: string): string {
  return `Set-Content -LiteralPath ${psQuote(path)} -Encoding Byte -Value ([Convert]::FromBase64String([Console]::In.ReadToEnd()))`;
}

/** What to send on stdin for `writeFromStdin`: text as UTF-8 without a BOM, as [IO.File]::WriteAllText wrote it. */
export function stdinOf(content: string | Buffer): string {
  return (typeof content === 'string' ? Buffer.from(content, 'utf8') : content).toString('base64');
}
