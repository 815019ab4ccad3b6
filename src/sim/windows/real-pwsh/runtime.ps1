# The runtime of groundcrew's Windows module for real pwsh (module-source.ts puts the generated cmdlet functions
# after it). Each function hands its bound parameters and pipeline input to the simulated Windows host over a
# unix socket (GC_SIM_SOCKET, one JSON line each way) and replays the answer: objects with their .NET type names,
# error records written or thrown as the real cmdlet does. Native programs (sc.exe, bcdedit, C:\...\nssm.exe)
# are found by the CommandNotFoundAction below and run as real processes that forward argv to the host.

$script:GcConnection = $null
$script:GcCommon = [System.Collections.Generic.HashSet[string]]::new([string[]]@(
    'ErrorAction', 'WarningAction', 'InformationAction', 'ProgressAction', 'Verbose', 'Debug', 'ErrorVariable',
    'WarningVariable', 'InformationVariable', 'OutVariable', 'OutBuffer', 'PipelineVariable', 'WhatIf', 'Confirm'),
  [System.StringComparer]::OrdinalIgnoreCase)

# Get-WindowsFeature's InstallState (Microsoft.Windows.ServerManager.Commands.InstallState on Windows; Linux pwsh
# has no ServerManager assembly).
enum InstallState { Available = 0; Installed = 1; InstallPending = 2; Removed = 3 }

# What the simulator does not model ends the script, as the TypeScript interpreter's PsUnmodelled does: no catch,
# -ErrorAction or 2>$null may turn it into a value.
function GcRefuse([string]$message) {
  [Console]::Out.Flush()
  [Console]::Error.WriteLine($message)
  [Environment]::Exit(1)
}

function GcAsk([System.Collections.IDictionary]$request) {
  if ($null -eq $script:GcConnection) {
    $socket = [System.Net.Sockets.Socket]::new([System.Net.Sockets.AddressFamily]::Unix,
      [System.Net.Sockets.SocketType]::Stream, [System.Net.Sockets.ProtocolType]::Unspecified)
    try { $socket.Connect([System.Net.Sockets.UnixDomainSocketEndPoint]::new($env:GC_SIM_SOCKET)) }
    catch { GcRefuse "groundcrew sim: the simulated host's socket ($env:GC_SIM_SOCKET) does not answer: $_" }
    $stream = [System.Net.Sockets.NetworkStream]::new($socket, $true)
    $utf8 = [System.Text.UTF8Encoding]::new($false)
    $writer = [System.IO.StreamWriter]::new($stream, $utf8)
    $writer.NewLine = [string][char]10
    $writer.AutoFlush = $true
    $script:GcConnection = @{ Reader = [System.IO.StreamReader]::new($stream, $utf8); Writer = $writer }
  }
  $request.host = $env:GC_SIM_HOST
  $script:GcConnection.Writer.WriteLine((ConvertTo-Json -InputObject $request -Depth 100 -Compress))
  $line = $script:GcConnection.Reader.ReadLine()
  if ($null -eq $line) { GcRefuse 'groundcrew sim: the simulated host closed the bridge' }
  ConvertFrom-Json -InputObject $line -AsHashtable -Depth 200
}

# A value for the wire (wire-values.ts reads it): objects keep their first type name and their properties.
function GcToWire($value, [int]$depth = 0) {
  if ($null -eq $value) { return $null }
  $base = if ($value -is [psobject]) { $value.PSObject.BaseObject } else { $value }
  if ($base -is [string] -or $base -is [bool]) { return $base }
  if ($base -is [char]) { return [string]$base }
  if ($base -is [System.Management.Automation.SwitchParameter]) { return $base.IsPresent }
  if ($base -is [enum]) { return @{ '$e' = $base.GetType().FullName; v = [long]$base; n = $base.ToString() } }
  if ($base -is [ValueType] -and ($base.GetType().IsPrimitive -or $base -is [decimal])) { return $base }
  if ($base -is [datetime]) { return @{ '$d' = $base.ToUniversalTime().ToString('o') } }
  # Values the simulated cmdlets take as text (-Uri, -MinimumVersion, an address): their string.
  if ($base -is [uri]) { return $base.OriginalString }
  if ($base -is [version] -or $base -is [guid] -or $base -is [ipaddress]) { return $base.ToString() }
  if ($base -is [byte[]]) { return @{ '$b' = [Convert]::ToBase64String($base) } }
  if ($base -is [scriptblock]) { return @{ '$sb' = $base.ToString() } }
  if ($depth -gt 8) { return $base.ToString() }
  if ($base -is [System.Collections.IDictionary]) {
    $h = [ordered]@{}
    foreach ($key in $base.Keys) { $h[[string]$key] = GcToWire $base[$key] ($depth + 1) }
    return @{ '$h' = $h }
  }
  if ($base -is [System.Collections.IEnumerable]) {
    $items = [System.Collections.Generic.List[object]]::new()
    foreach ($item in $base) { $items.Add((GcToWire $item ($depth + 1))) }
    return , $items.ToArray()
  }
  $props = [ordered]@{}
  foreach ($p in $value.PSObject.Properties) {
    if ($p.MemberType -notin 'NoteProperty', 'Property', 'AliasProperty', 'ScriptProperty') { continue }
    $props[$p.Name] = GcToWire $p.Value ($depth + 1)
  }
  @{ '$t' = $value.PSObject.TypeNames[0]; '$p' = $props }
}

# A wire value as pwsh objects: a PSCustomObject whose first type name is the real cmdlet's output type.
function GcFromWire($wire) {
  if ($null -eq $wire) { return $null }
  if ($wire -is [System.Collections.IList]) {
    $items = [System.Collections.Generic.List[object]]::new()
    foreach ($item in $wire) { $items.Add((GcFromWire $item)) }
    return , $items.ToArray()
  }
  if ($wire -isnot [System.Collections.IDictionary]) { return $wire }
  if ($wire.Contains('$d')) { return [datetime]::Parse($wire['$d'], [cultureinfo]::InvariantCulture, 'RoundtripKind') }
  if ($wire.Contains('$e')) { return [enum]::ToObject(([type]$wire['$e']), [long]$wire.v) }
  if ($wire.Contains('$b')) { return , [Convert]::FromBase64String($wire['$b']) }
  if ($wire.Contains('$h')) {
    $h = @{}
    foreach ($key in $wire['$h'].Keys) { $h[$key] = GcFromWire $wire['$h'][$key] }
    return $h
  }
  $props = [ordered]@{}
  foreach ($key in $wire['$p'].Keys) { $props[$key] = GcFromWire $wire['$p'][$key] }
  $object = [pscustomobject]$props
  if ($wire['$t'] -ne 'System.Management.Automation.PSCustomObject') { $object.PSObject.TypeNames.Insert(0, $wire['$t']) }
  if ($wire.Contains('$s')) {
    $text = [string]$wire['$s']
    $object | Add-Member -MemberType ScriptMethod -Name ToString -Value { $text }.GetNewClosure() -Force
  }
  # The simulated object's methods (NamedPipeClientStream.Connect): each call asks the host, which kept them.
  # (A closure runs outside the module: it holds GcCallMethod itself, which stays bound to the module.)
  if ($wire.Contains('$m')) {
    $call = ${function:GcCallMethod}
    foreach ($name in $wire['$m'].Keys) {
      $id = [string]$wire['$m'][$name]
      $object | Add-Member -MemberType ScriptMethod -Name $name -Value { & $call $id $args }.GetNewClosure() -Force
    }
  }
  $object
}

# A method call on a simulated object: its value, or what it throws (pwsh wraps that as the .NET method's
# MethodInvocationException, 'Exception calling "Connect" with "1" argument(s)').
function GcCallMethod([string]$id, [object[]]$arguments) {
  $wired = [System.Collections.Generic.List[object]]::new()
  foreach ($a in $arguments) { $wired.Add((GcToWire $a)) }
  $answer = GcAsk ([ordered]@{ op = 'method'; id = $id; argList = $wired.ToArray() })
  if ($answer.refused) { GcRefuse $answer.refused }
  if ($answer.terminating) { throw (GcErrorRecord $answer.terminating).Exception }
  foreach ($event in $answer.events) { GcFromWire $event.out }
}

# The ErrorRecord the real cmdlet would write: its exception type where pwsh has it, category, activity, reason,
# target. pwsh appends the function's name to FullyQualifiedErrorId (",Get-Service"), after the cmdlet's own id.
function GcErrorRecord($e) {
  $type = if ($e.exceptionType) { $e.exceptionType -as [type] }
  $exception = $null
  if ($type -and [Exception].IsAssignableFrom($type)) { try { $exception = $type::new([string]$e.message) } catch { } }
  if ($null -eq $exception) { $exception = [Exception]::new([string]$e.message) }
  $category = [System.Management.Automation.ErrorCategory]::NotSpecified
  [void][enum]::TryParse([System.Management.Automation.ErrorCategory], [string]$e.category, [ref]$category)
  $target = if ($e.targetName) { [string]$e.targetName } else { $null }
  $record = [System.Management.Automation.ErrorRecord]::new($exception, [string]$e.errorId, $category, $target)
  if ($e.activity) { $record.CategoryInfo.Activity = $e.activity }
  if ($e.reason) { $record.CategoryInfo.Reason = $e.reason }
  $record
}

function GcReplay($cmdlet, $answer) {
  foreach ($event in $answer.events) {
    if ($event.Contains('out')) { $cmdlet.WriteObject((GcFromWire $event.out), $false) }
    else { $cmdlet.WriteError((GcErrorRecord $event.error)) }
  }
  if ($answer.refused) { GcRefuse $answer.refused }
  if ($answer.terminating) { $cmdlet.ThrowTerminatingError((GcErrorRecord $answer.terminating)) }
}

# The cmdlets to export: all but those whose module the host lacks (Hyper-V's before the feature, HNS's on
# Server 2016 before hns.psm1 is imported), which are then not commands at all, as on Windows.
function GcExported {
  $absent = @((GcAsk ([ordered]@{ op = 'absent'; names = $script:GcGated })).absent)
  $script:GcCmdlets | Where-Object { $_ -notin $absent }
}

# After Import-Module on the host (hns.psm1 on Server 2016): the cmdlets now present become commands.
function GcDefinePresent {
  $absent = @((GcAsk ([ordered]@{ op = 'absent'; names = $script:GcGated })).absent)
  foreach ($name in $script:GcGated) {
    if ($name -in $absent -or (Get-Command -Name $name -CommandType Function -ErrorAction Ignore)) { continue }
    Set-Item -LiteralPath "function:global:$name" -Value (Get-Item -LiteralPath "function:$name").ScriptBlock
  }
}

# Called from each function's begin block: what the command line bound (pipeline input binds later, per object).
function GcBegin($bound) {
  $named = [ordered]@{}
  foreach ($key in $bound.Keys) { $named[$key] = $bound[$key] }
  @{ Bound = $named; Input = [System.Collections.Generic.List[object]]::new(); Piped = [System.Collections.Generic.List[object]]::new() }
}

# Called from each function's process block, per pipeline object: the object, and the parameters pwsh bound from
# it (ByValue or ByPropertyName: 'docker' | Get-Service binds -Name) other than -InputObject, which the host
# takes as the piped objects themselves.
function GcInput($gc, $bound, $item) {
  $piped = [ordered]@{}
  foreach ($key in $bound.Keys) { if (-not $gc.Bound.Contains($key) -and $key -ne 'InputObject') { $piped[$key] = $bound[$key] } }
  $gc.Input.Add($item)
  $gc.Piped.Add($piped)
}

$script:GcWindowsPath = '^([A-Za-z]:([\\/]|$)|\\\\|//\./pipe/|(HKLM|HKCU|HKEY_LOCAL_MACHINE|Cert|Registry)::?|Microsoft\.PowerShell\.Core\\Registry::)'

# Whether a file-system call is about the Windows host (a Windows path or provider path, or objects the host
# gave): else it is pwsh's own (env:, variable:, function:, a Linux path) and goes to pwsh's own cmdlet.
function GcIsWindowsCall($gc, [string[]]$pathParameters) {
  foreach ($name in $pathParameters) {
    if (-not $gc.Bound.Contains($name)) { continue }
    foreach ($path in @($gc.Bound[$name])) { if ([string]$path -match $script:GcWindowsPath) { return $true } }
    return $false
  }
  foreach ($item in $gc.Input) {
    if ($item -is [string]) { return $item -match $script:GcWindowsPath }
    foreach ($name in 'PSPath', 'FullName', 'Path') {
      $value = $item.PSObject.Properties[$name]
      if ($value) { return [string]$value.Value -match $script:GcWindowsPath }
    }
  }
  $pathParameters.Count -eq 0
}

# Called from each function's end block.
function GcEnd($cmdlet, $gc, [string]$name, [string]$realCommand, [string[]]$pathParameters, [bool]$shouldProcess) {
  if ($realCommand -and -not (GcIsWindowsCall $gc $pathParameters)) {
    $bound = $gc.Bound
    if ($gc.Input.Count -gt 0) { $gc.Input | & $realCommand @bound } else { & $realCommand @bound }
    return
  }
  if ($shouldProcess) {
    $target = foreach ($key in $gc.Bound.Keys) { if (-not $script:GcCommon.Contains($key)) { "$($gc.Bound[$key])"; break } }
    if ($null -eq $target -and $gc.Input.Count -gt 0) { $target = "$($gc.Input[0])" }
    if (-not $cmdlet.ShouldProcess([string]$target, $name)) { return }
  }
  # Objects that bound parameters are one call each, with those parameters (the cmdlet's process block per object).
  if (@($gc.Piped | Where-Object { $_.Count -gt 0 }).Count -gt 0) {
    foreach ($piped in $gc.Piped) {
      $bound = [ordered]@{}
      foreach ($key in $gc.Bound.Keys) { $bound[$key] = $gc.Bound[$key] }
      foreach ($key in $piped.Keys) { $bound[$key] = $piped[$key] }
      GcAskCmdlet $cmdlet $name $bound @()
    }
  } else { GcAskCmdlet $cmdlet $name $gc.Bound $gc.Input }
  if ($name -eq 'Import-Module') { GcDefinePresent }
}

function GcAskCmdlet($cmdlet, [string]$name, $bound, $inputObjects) {
  $named = [ordered]@{}
  foreach ($key in $bound.Keys) { if (-not $script:GcCommon.Contains($key)) { $named[$key] = GcToWire $bound[$key] } }
  $items = [System.Collections.Generic.List[object]]::new()
  foreach ($item in $inputObjects) { $items.Add((GcToWire $item)) }
  GcReplay $cmdlet (GcAsk ([ordered]@{ op = 'cmdlet'; name = $name; args = $named; input = $items.ToArray() }))
}

# Native programs: a name pwsh cannot find (its PATH is empty) that the host has as a program becomes a real
# process (a console program: $LASTEXITCODE and $? as PowerShell sets them) or, for a GUI-subsystem program such
# as msiexec run with &, a call that returns at once and leaves $LASTEXITCODE alone.
$script:GcShims = @{}
$ExecutionContext.InvokeCommand.CommandNotFoundAction = {
  param([string]$commandName, [System.Management.Automation.CommandLookupEventArgs]$lookup)
  if ($commandName -match '^(get-|\.|/)' -or $commandName -match '[/]') { return }
  $answer = GcAsk ([ordered]@{ op = 'native'; name = $commandName })
  if ($answer.kind -eq 'gui') {
    $invoked = $commandName
    $lookup.CommandScriptBlock = { $null = GcAsk ([ordered]@{ op = 'gui'; name = $invoked; argv = [string[]]@($args) }) }.GetNewClosure()
    $lookup.StopSearch = $true
  } elseif ($answer.kind -eq 'console') {
    $shim = $script:GcShims[$commandName]
    if (-not $shim) {
      $file = Join-Path $env:GC_SIM_SHIMS ('native-' + $script:GcShims.Count)
      $quote = { param($s) "'" + ($s -replace "'", "'\''") + "'" }
      $line = 'exec ' + (& $quote $env:GC_SIM_CLIENT) + ' ' + (& $quote $env:GC_SIM_NATIVES) + ' ' + (& $quote $env:GC_SIM_HOST) + ' native ' + (& $quote $commandName) + ' "$@"'
      [System.IO.File]::WriteAllText($file, "#!/bin/sh" + [char]10 + $line + [char]10)
      [System.IO.File]::SetUnixFileMode($file, [System.IO.UnixFileMode]'UserRead, UserWrite, UserExecute')
      $shim = Get-Command -CommandType Application -Name $file
      $script:GcShims[$commandName] = $shim
    }
    $lookup.Command = $shim
    $lookup.StopSearch = $true
  }
}
