# The session's Windows identity for real pwsh, where .NET's WindowsIdentity throws "Windows Principal functionality
# is not supported on this platform". The usual elevation check ([Security.Principal.WindowsPrincipal]
# [Security.Principal.WindowsIdentity]::GetCurrent()).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator),
# as contrail-windows-tools' Invoke-DiagnosticCheck.ps1 and c-a-d's Windows roles run it) answers as the host's session
# does: the Administrator's SSH session, elevated unless the host's state says not (state.elevated). Type
# accelerators point both spellings (Security.Principal.* and System.Security.Principal.*) at the types below; they
# take effect for scripts parsed after this module loads (the profile loads it first).

# System.Security.Principal.WindowsBuiltInRole's values (Microsoft docs: WindowsBuiltInRole Enum).
enum WindowsBuiltInRole {
  Administrator = 544; User = 545; Guest = 546; PowerUser = 547; AccountOperator = 548; SystemOperator = 549
  PrintOperator = 550; BackupOperator = 551; Replicator = 552
}

class WindowsIdentity {
  [string]$Name
  [string]$AuthenticationType = 'NTLM'
  [bool]$IsAuthenticated = $true
  [bool]$IsAnonymous = $false
  [bool]$IsGuest = $false
  [bool]$IsSystem = $false
  hidden [bool]$Administrator

  static [WindowsIdentity] GetCurrent() {
    $answer = GcAsk ([ordered]@{ op = 'identity' })
    $identity = [WindowsIdentity]::new()
    $identity.Name = $answer.name
    $identity.Administrator = $answer.administrator
    return $identity
  }
  static [WindowsIdentity] GetCurrent([bool]$ifImpersonating) { return [WindowsIdentity]::GetCurrent() }
  [void] Dispose() { }
  [string] ToString() { return 'System.Security.Principal.WindowsIdentity' }
}

class WindowsPrincipal {
  [WindowsIdentity]$Identity
  WindowsPrincipal([WindowsIdentity]$identity) { $this.Identity = $identity }

  [bool] IsInRole([WindowsBuiltInRole]$role) {
    if ($role -eq [WindowsBuiltInRole]::Administrator) { return $this.Identity.Administrator }
    return $role -eq [WindowsBuiltInRole]::User
  }
  # A group by name: BUILTIN\Administrators or Administrators, BUILTIN\Users or Users; any other group this
  # account is not in.
  [bool] IsInRole([string]$role) {
    $group = $role -replace '^BUILTIN\\', ''
    if ($group -eq 'Administrators') { return $this.Identity.Administrator }
    return $group -eq 'Users'
  }
  [string] ToString() { return 'System.Security.Principal.WindowsPrincipal' }
}

$accelerators = [psobject].Assembly.GetType('System.Management.Automation.TypeAccelerators')
foreach ($type in [WindowsIdentity], [WindowsPrincipal], [WindowsBuiltInRole]) {
  foreach ($prefix in 'Security.Principal.', 'System.Security.Principal.') {
    $accelerators::Remove($prefix + $type.Name) | Out-Null
    $accelerators::Add($prefix + $type.Name, $type)
  }
}
Remove-Variable -Name accelerators, type, prefix
