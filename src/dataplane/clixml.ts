// Windows PowerShell (5.1, and pwsh 7) started with -EncodedCommand and no terminal writes its error stream as
// CLIXML on stderr ("#< CLIXML" then <Objs>...; PowerShell/PowerShell#16678): the text of each error line is an
// <S S="Error"> element with XML entities and _xHHHH_ escapes. This turns it back into the text a console shows.

const MARK = '#< CLIXML';

function decodeXmlText(text: string): string {
  return text
    .replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&');
}

/** stderr as text: CLIXML's error, warning and other stream strings in order; anything else unchanged. */
export function stderrText(stderr: string): string {
  const at = stderr.indexOf(MARK);
  if (at < 0) return stderr;
  const before = stderr.slice(0, at);
  const xml = stderr.slice(at + MARK.length);
  const strings = [...xml.matchAll(/<S S="[^"]*">([\s\S]*?)<\/S>/g)].map((m) => decodeXmlText(m[1] ?? ''));
  return before + strings.join('');
}
