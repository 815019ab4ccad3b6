// Positions, mandatory flags and pipeline binding of the catalogued cmdlets' parameters where the reference page's
// PARAMETERS section gives them and the simulated cmdlet's own spec cannot say them (a parameter of some sets
// only). MicrosoftDocs/windows-powershell-docs, docset/winserver2019-ps/hyper-v/ (commit 10e7497a for
// Get-VMSwitch.md, 0cb7634d for Get-VMSwitchExtension.md).

export interface PageBinding {
  position?: number;
  mandatory?: boolean;
  /** Accept pipeline input: True (ByValue). */
  byValue?: boolean;
}

/** Cmdlet -> parameter -> how the page binds it (in every set the parameter belongs to). */
export const PAGE_BINDING: Record<string, Record<string, PageBinding>> = {
  // SYNTAX: Get-VMSwitch [[-Name] <String>] [[-ResourcePoolName] <String[]>] ... / [[-Id] <Guid[]>] ...
  'Get-VMSwitch': { Name: { position: 0 }, Id: { position: 0 }, ResourcePoolName: { position: 1 } },
  // SYNTAX: Get-VMSwitchExtension [-VMSwitchName] <String[]> [[-Name] <String[]>] / [-VMSwitch] <VMSwitch[]> ...
  // (Both take the pipeline ByValue on Windows; the simulated cmdlet reads no piped switch yet, so neither does here.)
  'Get-VMSwitchExtension': {
    VMSwitchName: { position: 0, mandatory: true },
    VMSwitch: { position: 0, mandatory: true },
    Name: { position: 1 },
  },
};
