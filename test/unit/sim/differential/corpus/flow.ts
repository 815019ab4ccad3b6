// Conditions, loops and switch (about_If, about_Foreach, about_For, about_While, about_Do, about_Switch, ...).

import { onPage } from './group.js';

export const FLOW = [
  ...onPage('about_If', [
    ['if elseif else', `$n = 5; if ($n -lt 3) { 'small' } elseif ($n -lt 10) { 'medium' } else { 'large' }`],
    ['if on a string', `if ('false') { 'non-empty string is true' }`],
    ['if on zero', `if (0) { 'y' } else { 'n' }`],
    ['if on $null', `if ($null) { 'y' } else { 'n' }`],
    ['if as an expression value', `$v = if ($true) { 'a' } else { 'b' }; $v`],
    ['assignment in a condition', `if ($x = 3) { $x }`],
  ]),
  ...onPage('about_Foreach', [
    ['foreach over an array', `foreach ($i in 1,2,3) { $i * 10 }`],
    ['foreach over $null does nothing', `foreach ($i in $null) { 'ran' }; 'done'`],
    ['foreach over a scalar', `foreach ($i in 5) { $i }`],
    ['foreach output collected', `$r = foreach ($i in 1..3) { $i }; $r.Count`],
    ['foreach variable after the loop', `foreach ($i in 1..3) { }; $i`],
    ['foreach over a hashtable is one item', `$n = 0; foreach ($x in @{a=1;b=2}) { $n++ }; $n`],
  ]),
  ...onPage('about_For', [
    ['for loop', `for ($i = 0; $i -lt 3; $i++) { $i }`],
    ['for with two variables', `for ($i = 0, $j = 5; $i -lt 2; $i++) { "$i $j" }`],
  ]),
  ...onPage('about_While and about_Do', [
    ['while', `$i = 0; while ($i -lt 3) { $i; $i++ }`],
    ['do while runs once', `$i = 5; do { 'once' } while ($i -lt 3)`],
    ['do until', `$i = 0; do { $i++ } until ($i -ge 3); $i`],
  ]),
  ...onPage('about_Break and about_Continue', [
    ['break leaves the loop', `foreach ($i in 1..5) { if ($i -eq 3) { break }; $i }`],
    ['continue skips', `foreach ($i in 1..4) { if ($i % 2) { continue }; $i }`],
    ['break in a nested loop leaves the inner one', `foreach ($a in 1,2) { foreach ($b in 1,2) { if ($b -eq 2) { break }; "$a$b" } }`],
    ['labelled break', `:outer foreach ($a in 1,2) { foreach ($b in 1,2) { if ($b -eq 2) { break outer }; "$a$b" } }`],
    ['break outside a loop ends the script', `'a'; break; 'b'`],
  ]),
  ...onPage('about_Switch', [
    ['matching clauses all run', `switch (3) { 3 { 'three' } 3 { 'again' } default { 'none' } }`],
    ['default only when none matched', `switch ('x') { 'y' { 'y' } default { 'default' } }`],
    ['switch is case-insensitive', `switch ('ABC') { 'abc' { 'matched' } }`],
    ['break in a clause', `switch (1) { 1 { 'one'; break } 1 { 'not reached' } }`],
    ['switch over a collection', `switch (1, 2, 3) { 2 { 'two' } default { "other $_" } }`],
    ['continue in a clause moves to the next item', `switch (1, 2) { 1 { 'one'; continue } default { "d $_" } }`],
    ['-Wildcard', `switch -Wildcard ('server01') { 'serv*' { 'wild' } }`],
    ['-Regex sets $Matches', `switch -Regex ('v12') { 'v(\\d+)' { $Matches[1] } }`],
    ['-Exact', `switch -Exact ('a*') { 'a*' { 'exact' } }`],
    ['-CaseSensitive', `switch -CaseSensitive ('A') { 'a' { 'lower' } 'A' { 'upper' } }`],
    ['script block clause', `switch (5) { { $_ -gt 3 } { 'big' } }`],
    ['switch value assigned', `$r = switch (2) { 1 { 'a' } 2 { 'b' } }; $r`],
    ['switch on $null', `switch ($null) { $null { 'null' } default { 'd' } }`],
    ['switch on an empty array', `switch (@()) { default { 'd' } }; 'after'`],
  ]),
];
