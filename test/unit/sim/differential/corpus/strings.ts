// Strings, quoting, here-strings, expansion and -f (about_Quoting_Rules, about_Operators, about_Special_Characters).

import { onPage } from './group.js';

export const STRINGS = [
  ...onPage('about_Quoting_Rules', [
    ['single quotes are literal', `$x = 5; 'value: $x'`],
    ['double quotes expand a variable', `$x = 5; "value: $x"`],
    ['subexpression in a string', `$a = 2; "sum $($a + 3) done"`],
    ['doubled single quote', `'it''s'`],
    ['backtick escapes a dollar', '"cost `$5"'],
    ['backtick n and t', '"a`tb`nc"'],
    ['doubled double quote', '"say ""hi"""'],
    ['member access needs a subexpression', `$h = @{a=1}; "$h.a"`],
    ['array in a string joins with spaces', `$a = 1,2,3; "[$a]"`],
    ['$null in a string is empty', `"[$null]"`],
    ['pscustomobject in a string', `$o = [pscustomobject]@{a=1; b='x'}; "$o"`],
    ['hashtable in a string is its type name', `$h = @{a=1}; "$h"`],
    ['braced variable name', '${my var} = 3; "${my var}"'],
    ['variable followed by a colon needs braces', `$x = 'h'; "\${x}:1"`],
    ['boolean in a string', `"$true $false"`],
    ['nested quotes in a subexpression', `"x $('inner') y"`],
    ['double-quoted here-string expands', '$n = 3\n@"\nn is $n\nline two\n"@'],
    ['single-quoted here-string is literal', "$n = 3\n@'\nn is $n\n'@"],
    ['here-string keeps inner quotes', "@'\nsay \"hi\" and 'bye'\n'@"],
    ['double in a string', `$d = 1.5; "d=$d"`],
    ['string concatenation with +', `'a' + 'b' + 1`],
    ['number plus string converts the string', `1 + '2'`],
    ['string times number repeats', `'ab' * 3`],
  ]),
  ...onPage('about_Operators: -f', [
    ['positional placeholders', `'{0}-{1}' -f 'a', 'b'`],
    ['width right-aligns', `'[{0,5}]' -f 'ab'`],
    ['negative width left-aligns', `'[{0,-5}]' -f 'ab'`],
    ['doubled braces are literal', `'{{{0}}}' -f 7`],
    ['N2 format', `'{0:N2}' -f 1234.567`],
    ['D4 format', `'{0:D4}' -f 42`],
    ['X format', `'{0:X}' -f 255`],
    ['x8 format', `'{0:x8}' -f 255`],
    {
      name: 'about_Operators: -f: F1 format',
      script: `'{0:F1}' -f 2.25`,
      page: 'about_Operators: -f',
      differs51: {
        why: '.NET Core 3.0 formats doubles exactly (2.25 to one place is 2.2, half to even); .NET Framework 4, under 5.1, rounds its 15-digit text half away from zero (2.3): devblogs.microsoft.com/dotnet/floating-point-parsing-and-formatting-improvements-in-net-core-3-0',
        pwsh7: { stdout: '2.2\n' },
        ps51: { stdout: '2.3\n' },
      },
    },
    ['index out of range is an error', `'{1}' -f 'a'`],
    ['array argument as the list', `$a = 'x','y'; '{1}{0}' -f $a`],
    ['P format', `'{0:P0}' -f 0.5`],
    ['date format string', `'{0:yyyy}' -f (Get-Date -Year 2020)`],
  ]),
  ...onPage('about_Special_Characters', [
    ['backtick zero is a null char', '"a`0b".Length'],
    {
      name: 'about_Special_Characters: unicode escape (7 only)',
      script: '"`u{263A}".Length',
      page: 'about_Special_Characters',
      differs51: {
        why: 'the `u{x} escape came with PowerShell 6.0 (about_Special_Characters, 7.x); in 5.1 `u is a plain u, so the string is the 7 characters u{263A}',
        pwsh7: { stdout: '1\n' },
        ps51: { stdout: '7\n' },
      },
    },
  ]),
];
