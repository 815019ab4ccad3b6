# Reads .NET Framework reference assemblies (a directory of them, e.g. the NuGet package
# Microsoft.NETFramework.ReferenceAssemblies.net462's build/.NETFramework/v4.6.2) with System.Reflection.Metadata and
# writes, for each type named on stdin (a JSON array of full names), its public members as JSON: per static and
# instance, methods with their argument counts, properties and fields, inherited ones included, and an enum's
# values. A type no assembly there defines is written as { present: false }. Used by scripts/ps51-reference-data.ts.
using namespace System.Reflection.Metadata
param([Parameter(Mandatory)] [string] $Directory)
$ErrorActionPreference = 'Stop'

$wanted = [Console]::In.ReadToEnd() | ConvertFrom-Json
# Every type definition of every assembly, by full name (nested types as Outer+Inner).
$defs = @{}
$readers = foreach ($file in Get-ChildItem -LiteralPath $Directory -Filter *.dll) {
    $stream = [IO.File]::OpenRead($file.FullName)
    $pe = [System.Reflection.PortableExecutable.PEReader]::new($stream)
    if (-not $pe.HasMetadata) { continue }
    $reader = [System.Reflection.Metadata.PEReaderExtensions]::GetMetadataReader($pe)
    foreach ($h in $reader.TypeDefinitions) {
        $t = $reader.GetTypeDefinition($h)
        $name = $reader.GetString($t.Name)
        $outer = $t.GetDeclaringType()
        $full = if (-not $outer.IsNil) {
            $o = $reader.GetTypeDefinition($outer)
            "$($reader.GetString($o.Namespace)).$($reader.GetString($o.Name))+$name"
        } else { "$($reader.GetString($t.Namespace)).$name" }
        if (-not $defs.ContainsKey($full)) { $defs[$full] = @{ reader = $reader; type = $t } }
    }
    $reader
}
$null = $readers

# The full name of a base type handle (a definition or a reference to another assembly's).
function Get-HandleName($reader, $handle) {
    if ($handle.IsNil) { return $null }
    switch ($handle.Kind) {
        'TypeDefinition' { $t = $reader.GetTypeDefinition([TypeDefinitionHandle] $handle); return "$($reader.GetString($t.Namespace)).$($reader.GetString($t.Name))" }
        'TypeReference' { $t = $reader.GetTypeReference([TypeReferenceHandle] $handle); return "$($reader.GetString($t.Namespace)).$($reader.GetString($t.Name))" }
        default { return $null }
    }
}

$public = [System.Reflection.MethodAttributes]::Public
$static = [System.Reflection.MethodAttributes]::Static
function Get-Members([string] $full) {
    $out = @{ static = @{ methods = @{}; properties = @{}; fields = @{} }; instance = @{ methods = @{}; properties = @{}; fields = @{} } }
    $enum = $null
    $seen = 0
    while ($full -and $defs.ContainsKey($full) -and $seen -lt 20) {
        $seen++
        $reader = $defs[$full].reader
        $t = $defs[$full].type
        $base = Get-HandleName $reader $t.BaseType
        if ($seen -eq 1 -and $base -eq 'System.Enum') { $enum = [System.Collections.Generic.List[string]]::new() }
        foreach ($mh in $t.GetMethods()) {
            $m = $reader.GetMethodDefinition($mh)
            if (($m.Attributes -band [System.Reflection.MethodAttributes]::MemberAccessMask) -ne $public) { continue }
            $name = $reader.GetString($m.Name)
            $kind = if ($m.Attributes -band $static) { 'static' } else { 'instance' }
            $arity = @($m.GetParameters() | Where-Object { $reader.GetParameter($_).SequenceNumber -gt 0 }).Count
            if ($name -match '^(get|set)_(.+)$') { $out[$kind].properties[$Matches[2]] = 1 }
            if (-not $out[$kind].methods.ContainsKey($name)) { $out[$kind].methods[$name] = [System.Collections.Generic.SortedSet[int]]::new() }
            $null = $out[$kind].methods[$name].Add($arity)
        }
        foreach ($fh in $t.GetFields()) {
            $f = $reader.GetFieldDefinition($fh)
            if (($f.Attributes -band [System.Reflection.FieldAttributes]::FieldAccessMask) -ne [System.Reflection.FieldAttributes]::Public) { continue }
            $name = $reader.GetString($f.Name)
            $kind = if ($f.Attributes -band [System.Reflection.FieldAttributes]::Static) { 'static' } else { 'instance' }
            $out[$kind].fields[$name] = 1
            if ($null -ne $enum -and $seen -eq 1 -and $kind -eq 'static') { $enum.Add($name) }
        }
        $full = $base
    }
    $shape = { param($k) [ordered]@{
            methods    = [ordered]@{} + ($out[$k].methods.GetEnumerator() | Sort-Object Key | ForEach-Object -Begin { $h = [ordered]@{} } -Process { $h[$_.Key] = @($_.Value) } -End { $h })
            properties = @($out[$k].properties.Keys | Sort-Object)
            fields     = @($out[$k].fields.Keys | Sort-Object)
        } }
    $record = [ordered]@{ present = $true; static = & $shape 'static'; instance = & $shape 'instance' }
    if ($null -ne $enum) { $record.enum = @($enum) }
    $record
}

$result = [ordered]@{}
foreach ($name in $wanted) {
    $result[$name] = if ($defs.ContainsKey($name)) { Get-Members $name } else { [ordered]@{ present = $false } }
}
ConvertTo-Json -InputObject $result -Depth 6 -Compress
