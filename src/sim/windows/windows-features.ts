// The Windows Server features the simulator knows by name (Get-WindowsFeature's Name column): the ones
// Contrail's deployment installs, and the management tools Hyper-V brings with -IncludeManagementTools.

/** c-a-d's install_software_Win32NT.yml installs Containers, NET-Framework-Features and Hyper-V. */
export const SERVER_FEATURES = [
  'Containers',
  'Hyper-V',
  'NET-Framework-Features',
  'NET-Framework-Core',
  'RSAT-Hyper-V-Tools',
  'Hyper-V-Tools',
  'Hyper-V-PowerShell',
] as const;

/**
 * What `Install-WindowsFeature -Name Hyper-V -IncludeManagementTools` adds (windows-powershell-docs,
 * ServerManager/Install-WindowsFeature.md: "-IncludeManagementTools Installs all applicable management
 * tools of the roles, role services, or features"). Without it there is no Hyper-V PowerShell module.
 */
export const HYPERV_TOOLS = ['RSAT-Hyper-V-Tools', 'Hyper-V-Tools', 'Hyper-V-PowerShell'] as const;

/** Sub-features Install-WindowsFeature adds with their parent (NET-Framework-Features includes Core). */
export const SUB_FEATURES: Record<string, readonly string[]> = { 'NET-Framework-Features': ['NET-Framework-Core'] };

/**
 * Features that are usable as soon as they are installed, without a restart (.NET 3.5 and management
 * tools); Containers and Hyper-V change the boot and wait for one.
 */
export const NO_RESTART: readonly string[] = ['NET-Framework-Features', 'NET-Framework-Core', ...HYPERV_TOOLS];
