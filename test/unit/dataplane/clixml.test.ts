// stderr of powershell.exe -EncodedCommand without a terminal is CLIXML; groundcrew reads the text in it.

import { describe, expect, it } from 'vitest';
import { stderrText } from '../../../src/dataplane/clixml.js';

describe('stderrText', () => {
  it('reads the error lines out of CLIXML as pwsh 7.6.9 wrote them in the lab', () => {
    const clixml =
      '#< CLIXML\n<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04"><S S="Error">Get-Servic : The term \'Get-Servic\' is not recognized as a name of a cmdlet, function, script file, or executable program._x000A_</S><S S="Error">At line:2 char:1_x000A_</S><S S="Error">+ FullyQualifiedErrorId : CommandNotFoundException_x000A_</S></Objs>';
    expect(stderrText(clixml)).toBe(
      "Get-Servic : The term 'Get-Servic' is not recognized as a name of a cmdlet, function, script file, or executable program.\nAt line:2 char:1\n+ FullyQualifiedErrorId : CommandNotFoundException\n",
    );
  });

  it('decodes entities and escapes (PowerShell/PowerShell#16678, Windows PowerShell 5.1 alike)', () => {
    expect(
      stderrText('#< CLIXML\r\n<Objs><S S="Error">a &lt;b&gt; &amp; "c"_x000D__x000A_</S><S S="warning">w_x000D__x000A_</S></Objs>'),
    ).toBe('a <b> & "c"\r\nw\r\n');
  });

  it('leaves plain stderr alone, and keeps what came before the CLIXML', () => {
    expect(stderrText('plain error\n')).toBe('plain error\n');
    expect(stderrText('sshd: note\n#< CLIXML\n<Objs><S S="Error">x</S></Objs>')).toBe('sshd: note\nx');
  });
});
