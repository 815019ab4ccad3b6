# Runs each snippet of a JSON file as `pwsh -c` would (ConsoleHost.cs: the command as one script pipeline, its
# errors merged into Out-Default, then `$global:?` or `exit N` for the exit code), each in a fresh runspace of
# this one process, and writes what a console would have shown. Usage: run-snippets.ps1 HOST.cs IN.json OUT.json
param([string]$HostSource, [string]$InFile, [string]$OutFile)
$ErrorActionPreference = 'Stop'
Add-Type -Path $HostSource
$iss = [System.Management.Automation.Runspaces.InitialSessionState]::CreateDefault()
$passNativeStderr = 'process { if ($_ -is [System.Management.Automation.ErrorRecord] -and $_.FullyQualifiedErrorId -like ''NativeCommandError*'') { $Host.UI.WriteErrorLine($_.Exception.Message) } else { $_ } }'
$snippets = Get-Content -Raw -LiteralPath $InFile | ConvertFrom-Json
$results = foreach ($snippet in $snippets) {
  if ($env:GC_DIFF_TRACE) { [Console]::Error.WriteLine($snippet.id) }
  $h = [GroundcrewDifferential.CaptureHost]::new()
  $rs = [runspacefactory]::CreateRunspace($h, $iss)
  $rs.Open()
  # 5.1's error view, which prints CategoryInfo and FullyQualifiedErrorId (7's default view does not).
  $rs.SessionStateProxy.SetVariable('ErrorView', 'NormalView')
  $failed = $false
  $p = $rs.CreatePipeline($snippet.script, $true)
  $p.Commands[0].MergeMyResults('Error', 'Output')
  # A native program writing straight to Out-Default gets the console itself; one step between keeps its
  # output in the pipeline, so this host sees it, in order. Its stderr, merged here as NativeCommandError(Message)
  # records, is the console's stderr, as under pwsh -c.
  $p.Commands.Add([System.Management.Automation.Runspaces.Command]::new($passNativeStderr, $true, $true))
  $p.Commands.Add([System.Management.Automation.Runspaces.Command]::new('Out-Default', $false, $true))
  $stopped = $false
  try { $stopped = [GroundcrewDifferential.Deadline]::Invoke($p, 20000) } catch { }
  if ($stopped) { throw "snippet $($snippet.id) ran past 20 s" }
  $reason = $p.PipelineStateInfo.Reason
  if ($reason -and $null -eq $h.ExitCode) {
    # ConsoleHost.ReportException: the error goes through Out-Default like any other, and the exit code is 1.
    $failed = $true
    $record = if ($reason -is [System.Management.Automation.IContainsErrorRecord]) { $reason.ErrorRecord } else { [System.Management.Automation.ErrorRecord]::new($reason, 'ConsoleHost.ReportException', 'NotSpecified', $null) }
    $report = $rs.CreatePipeline()
    $report.Commands.AddScript('[CmdletBinding()] param($Record) $PSCmdlet.WriteError($Record)')
    $report.Commands[0].Parameters.Add('Record', $record)
    $report.Commands[0].MergeMyResults('Error', 'Output')
    $report.Commands.Add([System.Management.Automation.Runspaces.Command]::new('Out-Default', $false, $true))
    $null = $report.Invoke()
  }
  $exitCode = if ($null -ne $h.ExitCode) { $h.ExitCode } elseif ($failed) { 1 } else {
    $status = $rs.CreatePipeline('$global:?', $false).Invoke()
    if ($status.Count -eq 1 -and $status[0] -eq $true) { 0 } else { 1 }
  }
  $rs.Dispose()
  [ordered]@{ id = $snippet.id; stdout = $h.Capture.Out.ToString(); stderr = $h.Capture.Err.ToString(); exitCode = $exitCode }
}
ConvertTo-Json -InputObject @($results) -Depth 3 | Set-Content -LiteralPath $OutFile -Encoding utf8NoBOM
