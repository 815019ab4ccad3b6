// The behaviours of functions, switch and errors again, written over several lines as the roles write them:
// tree-sitter-powershell refuses some one-line forms (`function f { param($a) $a }`, one-line switch clauses),
// which the other files keep as they are; these make sure the behaviour itself is compared.

import { onPage } from './group.js';

const f = (params: string, body: string, attrs = '') => `function f {\n  ${attrs}param(${params})\n  ${body}\n}\n`;
const soft = `function f {\n  [CmdletBinding()]\n  param()\n  Write-Error 'soft'\n  'after error'\n}\n`;

export const MULTILINE = [
  ...onPage('about_Functions (over lines)', [
    ['param block', `${f('$a, $b', '$a + $b')}f 2 3`],
    ['named parameter prefix', `${f('$Name', '"n=$Name"')}f -Na x`],
    ['colon syntax', `${f('[switch]$On', '"on=$On"')}f -On:$false; f -On`],
    ['switch parameter', `${f('[switch]$Force', "if ($Force) { 'forced' } else { 'gentle' }")}f; f -Force`],
    ['default value', `${f("$x = 'dflt'", '$x')}f; f 'given'`],
    ['typed parameter converts', `${f('[int]$n', '$n + 1')}f '41'`],
    ['typed parameter refuses', `${f('[int]$n', '$n')}f 'abc'`],
    ['$args beside a param block', `${f('$a', "$args -join ','")}f 1 2 3`],
    ['unknown named parameter on a simple function', `${f('$a', '$a')}f -zz 1`],
    ['unknown named parameter and its argument in $args', `${f('$a', '"a=$a args=$($args -join \'|\')"')}f -zz 1 2`],
    ['typed parameter is a typed variable', `${f('[int]$n', "$n = '7'; $n + 1")}f 1`],
    ['mandatory given', `${f('[Parameter(Mandatory=$true)][string]$x', '$x')}f -x ok`],
    ['unknown named parameter with CmdletBinding', `${f('$a', '$a', '[CmdletBinding()]\n  ')}f -zz 1`],
    ['positional binding with CmdletBinding', `${f('$a, $b', '"$a|$b"', '[CmdletBinding()]\n  ')}f 1 2`],
    ['too many positional with CmdletBinding', `${f('$a', '$a', '[CmdletBinding()]\n  ')}f 1 2`],
    ['string parameter of an array', `${f('[string]$s', '$s')}f (1, 2)`],
    ['a parameter named like a common one', `${f('$Name', '$Name', '[CmdletBinding()]\n  ')}f -ErrorAction Stop -Name x`],
  ]),
  ...onPage('about_CommonParameters (over lines)', [
    ['non-terminating error is not caught', `${soft}try { f } catch { 'caught' }`],
    ['$? after Write-Error redirected', `${soft}f 2>$null | Out-Null; $?`],
    ['-ErrorAction Ignore keeps $Error empty', `${soft}f -ErrorAction Ignore; $Error.Count`],
    ['SilentlyContinue hides and goes on', `${soft}f -ErrorAction SilentlyContinue`],
    ['Stop makes it terminating', `${soft}try { f -ErrorAction Stop } catch { 'caught ' + $_.Exception.Message }`],
    ['preference Stop', `$ErrorActionPreference = 'Stop'\n${soft}try { f; 'no' } catch { 'stopped' }`],
    ['a hidden error fails the script', `${soft}f -ErrorAction SilentlyContinue | Out-Null`],
    ['if around a failing command', `${soft}if (f -ErrorAction SilentlyContinue) { 'found' }`],
    ['2>&1 makes errors output', `${soft}$r = f 2>&1; $r.Count; $r[0].Exception.Message`],
    ['2>$null hides', `${soft}f 2>$null`],
    ['*>$null hides everything', `${soft}f *>$null; 'after'`],
    ['error shown, script goes on', `${soft}f; 'next'`],
  ]),
  ...onPage('about_Switch (over lines)', [
    ['matching clauses all run', "switch (3) {\n  3 { 'three' }\n  3 { 'again' }\n  default { 'none' }\n}"],
    ['default only when none matched', "switch ('x') {\n  'y' { 'y' }\n  default { 'default' }\n}"],
    ['break in a clause', "switch (1) {\n  1 { 'one'; break }\n  1 { 'not reached' }\n}"],
    ['switch over a collection', 'switch (1, 2, 3) {\n  2 { \'two\' }\n  default { "other $_" }\n}'],
    ['continue moves to the next item', 'switch (1, 2) {\n  1 { \'one\'; continue }\n  default { "d $_" }\n}'],
    ['-CaseSensitive', "switch -CaseSensitive ('A') {\n  'a' { 'lower' }\n  'A' { 'upper' }\n}"],
    ['switch value assigned', "$r = switch (2) {\n  1 { 'a' }\n  2 { 'b' }\n}\n$r"],
    ['switch on $null', "switch ($null) {\n  $null { 'null' }\n  default { 'd' }\n}"],
    ['-Regex with several clauses', "switch -Regex ('abc') {\n  '^a' { 'starts' }\n  'c$' { 'ends' }\n}"],
  ]),
  ...onPage('about_Operators: range and comma (in parentheses)', [
    ['range', `(1..4) -join ','`],
    ['descending range', `(3..1) -join ','`],
    ['range into a pipeline', `(1..5) | Where-Object { $_ % 2 }`],
    ['Select-Object -First', `(1..10) | Select-Object -First 3`],
    ['Select-Object -Last', `(1..10) | Select-Object -Last 2`],
    ['Select-Object -Skip', `(1..5) | Select-Object -Skip 3`],
  ]),
  ...onPage('about_Parsing: bareword lists', [
    ['Write-Output a,b,c', `Write-Output a,b,c`],
    [
      'a bareword list to a named parameter',
      `${f('$List, $Other', "$List.Count; $List -join '+'; $Other")}f -List Domain,Public,Private -Other x`,
    ],
    ['a bareword list of one item and a quoted one', `Write-Output a,'b c'`],
    ['a list with spaces after commas', `Write-Output a, b`],
  ]),
  ...onPage('about_Automatic_Variables: $? (more)', [
    ['$? after a catch that wrote output', `try { [int]'x' } catch { 'c' }; $?`],
    ['exit code after a catch that wrote output', `try { [int]'x' } catch { 'c' }`],
    ['$? inside catch', `try { [int]'x' } catch { $? }`],
  ]),
];
