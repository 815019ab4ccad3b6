# Reads a JSON array of PowerShell scripts on stdin and parses each with the real parser
# ([System.Management.Automation.Language.Parser]::ParseInput). Writes one JSON array back, a record per script:
#   errors        the parse errors (line, column, message)
#   sevenOnly     each construct of PowerShell 6/7 that Windows PowerShell 5.1 does not have, found in the AST
#   commands      each command call: its name and its named parameters, with the element after each
#   redirections  each redirection to a file (> and >> write as Out-File does; to $null they write nothing)
#   stderrRedirections  each command whose error stream is redirected (2>&1, 2>, *>), with the command's name
#   legacyArguments  each constant argument to a native program (not Verb-Noun) that 5.1's argument passing mangles:
#                 an embedded ", an empty string (dropped), whitespace before a trailing \ (the quote it adds is escaped)
#   variables     each variable read or written, by name (no scope prefix), with its line
#   members       each member used (. or ::): static or not, its name, its argument count (null for a property), and
#                 what its receiver is known to be from the script alone (ps51-members.ps1)
#   functions     the names of the functions the script defines
# The 7-only syntax is from the "What's New" pages (MicrosoftDocs/PowerShell-Docs, reference/docs-conceptual/
# whats-new/what-s-new-in-powershell-70.md: ?:, && ||, ?? ??=, ?. ?[], ForEach-Object -Parallel; -73.md: clean;
# 6.0: the background operator & and the `e `u{} escapes).

using namespace System.Management.Automation.Language
$ErrorActionPreference = 'Stop'
. (Join-Path $PSScriptRoot 'ps51-members.ps1')

# ForEach-Object and its aliases; -Parallel, -ThrottleLimit, -TimeoutSeconds and -AsJob came with 7.0.
$ForEachNames = @('foreach-object', 'foreach', '%')
$ParallelParameters = @('Parallel', 'ThrottleLimit', 'TimeoutSeconds', 'AsJob')

function New-Finding([string] $Construct, [Ast] $Node) {
    [pscustomobject]@{ construct = $Construct; text = $Node.Extent.Text; line = $Node.Extent.StartLineNumber }
}

# The 7-only construct a node is, or $null.
function Get-SevenOnly([Ast] $n) {
    if ($n -is [TernaryExpressionAst]) { return New-Finding 'ternary ?:' $n }
    if ($n -is [PipelineChainAst]) { return New-Finding 'pipeline chain && ||' $n }
    if ($n -is [BinaryExpressionAst] -and $n.Operator -eq 'QuestionQuestion') { return New-Finding 'null-coalescing ??' $n }
    if ($n -is [AssignmentStatementAst] -and $n.Operator -eq 'QuestionQuestionEquals') { return New-Finding 'null-coalescing assignment ??=' $n }
    if ($n -is [MemberExpressionAst] -and $n.NullConditional) { return New-Finding 'null-conditional member ?.' $n }
    if ($n -is [IndexExpressionAst] -and $n.NullConditional) { return New-Finding 'null-conditional index ?[]' $n }
    if ($n -is [PipelineAst] -and $n.Background) { return New-Finding 'background operator &' $n }
    if ($n -is [ScriptBlockAst] -and $null -ne $n.CleanBlock) { return New-Finding 'clean block' $n.CleanBlock }
    if ($n -is [CommandAst] -and $ForEachNames -contains "$($n.GetCommandName())".ToLowerInvariant()) {
        foreach ($p in $n.CommandElements) {
            # A parameter may be written as any unique prefix: -Pa is -Parallel.
            if ($p -isnot [CommandParameterAst] -or $p.ParameterName.Length -lt 2) { continue }
            foreach ($seven in $ParallelParameters) {
                if ($seven.StartsWith($p.ParameterName, [StringComparison]::OrdinalIgnoreCase)) { return New-Finding "ForEach-Object -$seven" $n }
            }
        }
    }
    # `e and `u{...} are escapes from 6.0 on; 5.1 reads them as the letters e and u.
    if (($n -is [StringConstantExpressionAst] -or $n -is [ExpandableStringExpressionAst]) -and
        $n.StringConstantType -in 'DoubleQuoted', 'DoubleQuotedHereString' -and $n.Extent.Text -cmatch '`(e|u\{)') {
        return New-Finding 'escape `e or `u{}' $n
    }
    $null
}

# A command call: its name, and each named parameter with the element after it (its argument unless a switch).
function Get-Call([CommandAst] $c) {
    $name = $c.GetCommandName()
    if (-not $name) { return $null }
    $elements = $c.CommandElements
    $parameters = for ($i = 1; $i -lt $elements.Count; $i++) {
        $e = $elements[$i]
        if ($e -isnot [CommandParameterAst]) { continue }
        $argument = if ($e.Argument) { $e.Argument } elseif ($i + 1 -lt $elements.Count -and $elements[$i + 1] -isnot [CommandParameterAst]) { $elements[$i + 1] } else { $null }
        [pscustomobject]@{
            name     = $e.ParameterName
            argument = if ($argument) { $argument.Extent.Text } else { $null }
            value    = if ($argument -is [StringConstantExpressionAst]) { $argument.Value } else { $null }
        }
    }
    [pscustomobject]@{
        name = $name; parameters = @($parameters); text = $c.Extent.Text
        shape = @(Get-ElementShape $c); remaining7 = @(Get-RemainingParameters $name)
    }
}

$scripts = [Console]::In.ReadToEnd() | ConvertFrom-Json
$results = foreach ($script in $scripts) {
    $tokens = $null
    $errors = $null
    $root = [Parser]::ParseInput([string] $script, [ref] $tokens, [ref] $errors)
    $sevenOnly = [System.Collections.Generic.List[object]]::new()
    $commands = [System.Collections.Generic.List[object]]::new()
    $redirections = [System.Collections.Generic.List[string]]::new()
    $stderrRedirections = [System.Collections.Generic.List[object]]::new()
    $legacyArguments = [System.Collections.Generic.List[object]]::new()
    $variables = [System.Collections.Generic.List[object]]::new()
    $members = [System.Collections.Generic.List[object]]::new()
    $functions = [System.Collections.Generic.List[string]]::new()
    Set-Assignments $root
    # One walk of the tree: every node, then each looked at once.
    foreach ($n in $root.FindAll({ $true }, $true)) {
        $finding = Get-SevenOnly $n
        if ($finding) { $sevenOnly.Add($finding) }
        if ($n -is [CommandAst]) {
            $call = Get-Call $n
            if ($call) { $commands.Add($call) }
            if ("$($n.GetCommandName())" -notmatch '^[A-Za-z]+-[A-Za-z]+$') {
                foreach ($e in $n.CommandElements | Select-Object -Skip 1) {
                    if ($e -isnot [StringConstantExpressionAst]) { continue }
                    $v = $e.Value
                    if ($v.Contains('"') -or $v -eq '' -or ($v -match '\s' -and $v.EndsWith('\'))) {
                        $legacyArguments.Add([pscustomobject]@{ command = "$($n.GetCommandName())"; argument = $e.Extent.Text })
                    }
                }
            }
            foreach ($r in $n.Redirections) {
                if ($r.FromStream -in 'Error', 'All') { $stderrRedirections.Add([pscustomobject]@{ command = "$($n.GetCommandName())"; text = $n.Extent.Text }) }
            }
        }
        if ($n -is [FileRedirectionAst] -and $n.Location.Extent.Text -ne '$null') { $redirections.Add($n.Extent.Text) }
        if ($n -is [VariableExpressionAst] -and -not $n.VariablePath.IsDriveQualified) {
            $vname = $n.VariablePath.UserPath -replace '^(global|script|local|private|using):', ''
            $variables.Add([pscustomobject]@{ name = $vname; line = $n.Extent.StartLineNumber })
        }
        if ($n -is [FunctionDefinitionAst]) { $functions.Add($n.Name) }
        if ($n -is [MemberExpressionAst]) {
            $member = Get-Member51 $n $root
            if ($member) { $members.Add($member) }
        }
    }
    [pscustomobject]@{
        errors       = @($errors | ForEach-Object { [pscustomobject]@{ line = $_.Extent.StartLineNumber; column = $_.Extent.StartColumnNumber; message = $_.Message } })
        sevenOnly    = $sevenOnly.ToArray()
        commands     = $commands.ToArray()
        redirections = $redirections.ToArray()
        stderrRedirections = $stderrRedirections.ToArray()
        legacyArguments = $legacyArguments.ToArray()
        variables    = $variables.ToArray()
        members      = $members.ToArray()
        functions    = $functions.ToArray()
    }
}
ConvertTo-Json -InputObject @($results) -Depth 6 -Compress
