# Runs each case of a JSON file (a role script and the simulated host it is sent to) as powershell.exe
# -EncodedCommand would (ConsoleHost.cs: the script as one pipeline, its errors merged into Out-Default, then
# `$global:?` or `exit N` for the exit code), each in a fresh runspace of this one process with groundcrew's Windows
# module imported, as a Windows host's session has it (test/support/real-pwsh-env.ts). The case's host is named by
# GC_SIM_HOST, which the module's functions and native shims send to the bridge; [Console]::In is the case's stdin;
# the process's working directory is the case's own, empty, and checked to stay so (a .NET static given a Windows
# path writes there). What the simulator does not model ends a script at once, as the module's GcRefuse ends a
# lab host's process: here it stops the case's pipeline instead (no catch sees that; a `finally` would run), so the
# other cases go on in this process. Each result is appended to OUT.jsonl as soon as it is known; should the
# process end anyway, the caller starts again after the case it was in.
# Usage: run-role-scripts.ps1 HOST.cs MODULE.psm1 IN.json OUT.jsonl WORKDIR
param([string]$HostSource, [string]$ModuleFile, [string]$InFile, [string]$OutFile, [string]$WorkRoot)
$ErrorActionPreference = 'Stop'
Add-Type -Path $HostSource
Add-Type -TypeDefinition @'
namespace GroundcrewDifferential {
  /// <summary>A refusal of the simulator in the running case: its message, and the case's pipeline stopped.</summary>
  public static class Refusal {
    public static string Message;
    public static System.Management.Automation.Runspaces.Pipeline Pipeline;
    public static void Reset(System.Management.Automation.Runspaces.Pipeline pipeline) {
      Message = null;
      Pipeline = pipeline;
    }
    public static void Refuse(string message) {
      if (Message == null) Message = message;
      Pipeline.StopAsync();
    }
  }
}
'@
$passNativeStderr = 'process { if ($_ -is [System.Management.Automation.ErrorRecord] -and $_.FullyQualifiedErrorId -like ''NativeCommandError*'') { $Host.UI.WriteErrorLine($_.Exception.Message) } else { $_ } }'
$refuseInPlace = '& (Get-Module GcWindows) { function script:GcRefuse([string]$message) { [GroundcrewDifferential.Refusal]::Refuse($message); while ($true) { Start-Sleep -Milliseconds 50 } } }'
$iss = [System.Management.Automation.Runspaces.InitialSessionState]::CreateDefault()
$iss.ImportPSModule([string[]]@($ModuleFile))
$cases = Get-Content -Raw -LiteralPath $InFile | ConvertFrom-Json
$utf8 = [System.Text.UTF8Encoding]::new($false)
foreach ($case in $cases) {
  # The caller reads this marker to know which case a refusal (on this process's stderr) belongs to.
  [Console]::Error.WriteLine("@@case $($case.id)")
  $work = Join-Path $WorkRoot $case.id
  $shims = Join-Path $WorkRoot "$($case.id).shims"
  $null = New-Item -ItemType Directory -Force -Path $work, $shims
  $env:GC_SIM_HOST = $case.id
  $env:GC_SIM_SHIMS = $shims
  $env:HOME = $work
  [Environment]::CurrentDirectory = $work
  [Console]::SetIn([System.IO.StringReader]::new([string]$case.stdin))
  $h = [GroundcrewDifferential.CaptureHost]::new()
  $rs = [runspacefactory]::CreateRunspace($h, $iss)
  $rs.Open()
  $rs.SessionStateProxy.Path.SetLocation($work) | Out-Null
  # 5.1's error view, as a lab host's profile sets it (real-pwsh-env.ts); the capture host writes plain text.
  $rs.SessionStateProxy.SetVariable('ErrorView', 'NormalView')
  $rs.CreatePipeline($refuseInPlace, $false).Invoke() | Out-Null
  $failed = $false
  $p = $rs.CreatePipeline($case.script, $true)
  $p.Commands[0].MergeMyResults('Error', 'Output')
  # A program's stderr, merged here as NativeCommandError(Message) records, is a console's stderr (pwsh -c).
  $p.Commands.Add([System.Management.Automation.Runspaces.Command]::new($passNativeStderr, $true, $true))
  $p.Commands.Add([System.Management.Automation.Runspaces.Command]::new('Out-Default', $false, $true))
  [GroundcrewDifferential.Refusal]::Reset($p)
  $stopped = $false
  try { $stopped = [GroundcrewDifferential.Deadline]::Invoke($p, 60000) } catch { }
  if ($stopped) { throw "case $($case.id) ran past 60 s" }
  $refused = [GroundcrewDifferential.Refusal]::Message
  if ($refused) { $null = $h.Capture.Err.Append($refused).Append("`n") }
  $reason = $p.PipelineStateInfo.Reason
  if ($refused) { $failed = $true }
  elseif ($reason -and $null -eq $h.ExitCode) {
    $failed = $true
    $record = if ($reason -is [System.Management.Automation.IContainsErrorRecord]) { $reason.ErrorRecord } else { [System.Management.Automation.ErrorRecord]::new($reason, 'ConsoleHost.ReportException', 'NotSpecified', $null) }
    $report = $rs.CreatePipeline()
    $report.Commands.AddScript('[CmdletBinding()] param($Record) $PSCmdlet.WriteError($Record)')
    $report.Commands[0].Parameters.Add('Record', $record)
    # Written as the console writes it, whatever the script left in $ErrorActionPreference (the prelude's Stop).
    $report.Commands[0].Parameters.Add('ErrorAction', 'Continue')
    $report.Commands[0].MergeMyResults('Error', 'Output')
    $report.Commands.Add([System.Management.Automation.Runspaces.Command]::new('Out-Default', $false, $true))
    $null = $report.Invoke()
  }
  $exitCode = if ($null -ne $h.ExitCode) { $h.ExitCode } elseif ($failed) { 1 } else {
    $status = $rs.CreatePipeline('$global:?', $false).Invoke()
    if ($status.Count -eq 1 -and $status[0] -eq $true) { 0 } else { 1 }
  }
  # The session ends: its connection to the bridge with it (one connection is one powershell.exe session).
  $rs.CreatePipeline('& (Get-Module GcWindows) { if ($script:GcConnection) { $script:GcConnection.Writer.Dispose() } }', $false).Invoke() | Out-Null
  $rs.Dispose()
  [Environment]::CurrentDirectory = $WorkRoot
  $strays = @(Get-ChildItem -Force -LiteralPath $work | ForEach-Object Name)
  $result = [ordered]@{ id = $case.id; stdout = $h.Capture.Out.ToString(); stderr = $h.Capture.Err.ToString(); exitCode = $exitCode; strays = $strays }
  [System.IO.File]::AppendAllText($OutFile, (ConvertTo-Json -InputObject $result -Depth 3 -Compress) + "`n", $utf8)
}
