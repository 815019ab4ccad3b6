// Errors: try/catch/finally, throw, trap, $?, $Error, -ErrorAction, $ErrorActionPreference and exit codes.

import { onPage } from './group.js';

export const ERRORS = [
  ...onPage('about_Try_Catch_Finally', [
    ['finally after try', `try { 'a' } finally { 'f' }`],
    ['catch then finally', `try { throw 'x' } catch { 'c' } finally { 'f' }`],
    ['uncaught throw still runs finally', `try { 'a'; throw 'boom' } finally { 'cleanup' }; 'never'`],
    ['exit in catch runs finally', `try { throw 'x' } catch { exit 4 } finally { 'finally ran' }`],
    [
      'typed catch picks the base type',
      `try { [int]'abc' } catch [System.Management.Automation.CommandNotFoundException] { 'nf' } catch [System.Management.Automation.RuntimeException] { 'runtime' }`,
    ],
    ['unmatched typed catch lets the error through', `try { [int]'x' } catch [System.IO.IOException] { 'io' }; 'next'`],
    [
      'catch of several types',
      `try { [int]'x' } catch [System.IO.IOException], [System.Management.Automation.RuntimeException] { 'either' }`,
    ],
    [
      'non-terminating error is not caught',
      `function f { [CmdletBinding()] param() Write-Error 'soft' }; try { f; 'went on' } catch { 'caught' }`,
    ],
    ['rethrow with throw', `try { try { [int]'x' } catch { throw } } catch { $_.FullyQualifiedErrorId }`],
    ['$_ in catch', `try { throw 'msg' } catch { $_.Exception.Message; $_.FullyQualifiedErrorId; $_.CategoryInfo.Category }`],
    ['error type name in catch', `try { throw 'msg' } catch { $_.Exception.GetType().FullName }`],
    ['catch a division by zero', `try { 1 / 0 } catch { $_.Exception.GetType().Name }`],
    ['try with output before the error', `try { 'before'; throw 'x'; 'after' } catch { 'caught' }`],
    ['catch of a method on null', `try { $null.Foo() } catch { $_.FullyQualifiedErrorId }`],
  ]),
  ...onPage('about_Throw', [
    ['throw a string', `throw 'bad thing'`],
    ['throw ends the script', `'a'; throw 'x'; 'b'`],
    ['throw without an argument', `throw`],
    ['throw an object', `try { throw [pscustomobject]@{code=5} } catch { $_.TargetObject.code }`],
  ]),
  ...onPage('about_Trap', [['trap continues after the statement', `trap { 'trapped'; continue }; throw 'x'; 'after'`]]),
  ...onPage('about_Automatic_Variables: $?', [
    ['$? after a successful statement', `$x = 1; $?`],
    ['$? after a failed cast', `try { [int]'x' } catch { }; $?`],
    ['$? after Write-Error in a function', `function f { [CmdletBinding()] param() Write-Error 'e' }; f 2>$null; $?`],
    ['$? after a native exit code', `gc-tool 3 | Out-Null; $?`],
    ['$? after a native success', `gc-tool 0 | Out-Null; $?`],
  ]),
  ...onPage('about_Automatic_Variables: $Error', [
    ['$Error newest first', `try { [int]'a' } catch { }; try { throw 'second' } catch { }; $Error.Count; $Error[0].Exception.Message`],
    ['$Error empty at start', `$Error.Count`],
    [
      '-ErrorAction Ignore keeps $Error empty',
      `function f { [CmdletBinding()] param() Write-Error 'e' }; f -ErrorAction Ignore; $Error.Count`,
    ],
  ]),
  ...onPage('about_CommonParameters: -ErrorAction', [
    [
      'SilentlyContinue hides and goes on',
      `function f { [CmdletBinding()] param() Write-Error 'e'; 'after error' }; f -ErrorAction SilentlyContinue`,
    ],
    [
      'Stop makes it terminating',
      `function f { [CmdletBinding()] param() Write-Error 'e'; 'after error' }; try { f -ErrorAction Stop } catch { 'caught' }`,
    ],
    [
      'preference Stop',
      `$ErrorActionPreference = 'Stop'; function f { [CmdletBinding()] param() Write-Error 'e' }; try { f; 'no' } catch { 'stopped' }`,
    ],
    [
      'ErrorVariable',
      `function f { [CmdletBinding()] param() Write-Error 'e' }; f -ErrorAction SilentlyContinue -ErrorVariable ev; $ev.Count`,
    ],
  ]),
  ...onPage('about_Automatic_Variables: exit codes (ConsoleHost.cs)', [
    ['exit N', `'a'; exit 3; 'b'`],
    ['exit without a number', `exit`],
    ['a hidden error still fails the script', `function f { [CmdletBinding()] param() Write-Error 'e' }; f -ErrorAction SilentlyContinue`],
    ['a later success clears it', `function f { [CmdletBinding()] param() Write-Error 'e' }; f -ErrorAction SilentlyContinue; 'fine'`],
    [
      'if around a failing command',
      `function f { [CmdletBinding()] param() Write-Error 'e' }; if (f -ErrorAction SilentlyContinue) { 'found' }`,
    ],
    ['last native exit code non-zero', `gc-tool 5`],
    ['exit with $LASTEXITCODE', `gc-tool 6 | Out-Null; exit $LASTEXITCODE`],
    ['exit with a string', `exit '7'`],
    ['exit with a large number', `exit 300`],
    ['script ending in a caught error', `try { throw 'x' } catch { }`],
  ]),
];
