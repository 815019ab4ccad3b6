# Dot-sourced by ps51-syntax.ps1: what a command call's elements are, which parameters take remaining arguments in
# this pwsh, and each member use with what its receiver is known to be from the script alone. PowerShell 7's own
# type inference (AstTypeInference) is internal, so this reads only what a script states: a type literal, a string,
# a cast, a command's output (its type is the 5.1 profile's OutputType, looked up on the TypeScript side), and a
# variable whose every assignment in the script is one of those.

using namespace System.Management.Automation.Language

# The elements after a command's name, each as "-Name" (a parameter; its argument, if any, follows), "-Name:" (a
# parameter with its argument joined by a colon), "@" (a splat) or "" (an argument). The TypeScript side knows
# which parameters are switches (the profile's types) and so which arguments are positional.
function Get-ElementShape([CommandAst] $c) {
    $elements = $c.CommandElements
    for ($i = 1; $i -lt $elements.Count; $i++) {
        $e = $elements[$i]
        if ($e -is [CommandParameterAst]) { if ($e.Argument) { "-$($e.ParameterName):" } else { "-$($e.ParameterName)" } }
        elseif ($e -is [VariableExpressionAst] -and $e.Splatted) { '@' }
        else { '' }
    }
}

# The parameters of the command as this pwsh has it that take the remaining arguments (ValueFromRemainingArguments).
$RemainingCache = @{}
function Get-RemainingParameters([string] $Name) {
    if (-not $RemainingCache.ContainsKey($Name)) {
        $command = Get-Command -Name $Name -CommandType Cmdlet, Function -ErrorAction Ignore | Select-Object -First 1
        $RemainingCache[$Name] = @(if ($command -and $command.Parameters) {
                foreach ($p in $command.Parameters.Values) {
                    if ($p.Attributes | Where-Object { $_ -is [Parameter] -and $_.ValueFromRemainingArguments }) { $p.Name }
                }
            })
    }
    $RemainingCache[$Name]
}

# A variable's name without its scope (global:, script:, local:, private:, using:); $null for a drive's ($env:X).
function Get-VariableName([VariableExpressionAst] $v) {
    if ($v.VariablePath.IsDriveQualified) { return $null }
    $v.VariablePath.UserPath -replace '^(global|script|local|private|using):', ''
}

function Resolve-TypeName([ITypeName] $t) {
    $reflected = $t.GetReflectionType()
    if ($reflected) { $reflected.FullName } else { $t.FullName }
}

# What a pipeline yields, when the script says: a command's output, or one expression's receiver.
function Get-PipelineReceiver([Ast] $p, [Ast] $root, [int] $depth) {
    if ($p -is [CommandExpressionAst]) { return Get-Receiver $p.Expression $root $depth }
    if ($p -isnot [PipelineAst]) { return $null }
    $last = $p.PipelineElements[-1]
    if ($last -is [CommandAst] -and $last.GetCommandName()) { return [pscustomobject]@{ types = @(); command = $last.GetCommandName() } }
    if ($p.PipelineElements.Count -eq 1 -and $last -is [CommandExpressionAst]) { return Get-Receiver $last.Expression $root $depth }
    $null
}

# What an expression is known to be: .NET type names, or the command whose output it is; $null when unknown.
function Get-Receiver([Ast] $e, [Ast] $root, [int] $depth = 0) {
    if ($depth -gt 4) { return $null }
    $depth++
    if ($e -is [TypeExpressionAst]) { return [pscustomobject]@{ types = @(Resolve-TypeName $e.TypeName); command = $null } }
    if ($e -is [StringConstantExpressionAst] -or $e -is [ExpandableStringExpressionAst]) { return [pscustomobject]@{ types = @('System.String'); command = $null } }
    if ($e -is [ConvertExpressionAst]) { return [pscustomobject]@{ types = @(Resolve-TypeName $e.Type.TypeName); command = $null } }
    if ($e -is [ParenExpressionAst]) { return Get-PipelineReceiver $e.Pipeline $root $depth }
    if (($e -is [SubExpressionAst] -or $e -is [ArrayExpressionAst]) -and $e.SubExpression.Statements.Count -eq 1) {
        return Get-PipelineReceiver $e.SubExpression.Statements[0] $root $depth
    }
    if ($e -is [VariableExpressionAst]) {
        $name = Get-VariableName $e
        if (-not $name -or -not $Assignments.ContainsKey($name)) { return $null }
        $assigned = $Assignments[$name]
        $answers = @(foreach ($a in $assigned) {
                if ($a.Left -is [ConvertExpressionAst]) { [pscustomobject]@{ types = @(Resolve-TypeName $a.Left.Type.TypeName); command = $null } }
                else { Get-PipelineReceiver $a.Right $root $depth }
            })
        # Known only when every assignment says the same.
        $distinct = @($answers | ForEach-Object { if ($_) { "$($_.types -join ',')|$($_.command)" } else { 'unknown' } } | Select-Object -Unique)
        if ($distinct.Count -eq 1 -and $distinct[0] -ne 'unknown') { return $answers[0] }
    }
    $null
}

# Each variable's plain assignments (= only) in the script being read, by name: set by Set-Assignments per script.
$Assignments = @{}
function Set-Assignments([Ast] $root) {
    $script:Assignments = @{}
    foreach ($a in $root.FindAll({ param($n) $n -is [AssignmentStatementAst] -and $n.Operator -eq 'Equals' }, $true)) {
        $target = if ($a.Left -is [ConvertExpressionAst]) { $a.Left.Child } else { $a.Left }
        if ($target -isnot [VariableExpressionAst]) { continue }
        $name = Get-VariableName $target
        if (-not $name) { continue }
        if (-not $script:Assignments.ContainsKey($name)) { $script:Assignments[$name] = [System.Collections.Generic.List[object]]::new() }
        $script:Assignments[$name].Add($a)
    }
}

# A member use: static or not, its name, its argument count (null for a property), its receiver when known.
function Get-Member51([MemberExpressionAst] $m, [Ast] $root) {
    if ($m.Member -isnot [StringConstantExpressionAst]) { return $null }
    $receiver = Get-Receiver $m.Expression $root
    [string[]] $types = if ($receiver) { $receiver.types } else { @() }
    [pscustomobject]@{
        static    = $m.Static
        member    = $m.Member.Value
        arguments = if ($m -is [InvokeMemberExpressionAst]) { @($m.Arguments).Count } else { $null }
        types     = $types
        command   = if ($receiver) { $receiver.command } else { $null }
        text      = $m.Extent.Text
        line      = $m.Extent.StartLineNumber
    }
}
