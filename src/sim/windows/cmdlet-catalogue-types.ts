// The type of every parameter of the generated catalogue entries (cmdlet-catalogue-data.ts), as each reference
// page's PARAMETERS section gives it (`Type:` of the parameter's yaml block), from the same commits:
// MicrosoftDocs/windows-powershell-docs f113d6bd, MicrosoftDocs/PowerShell-Docs 27138b21.
// Each entry: "Param:Type,Param:Type" (types as the page spells them).

export const TYPES: Record<string, string> = {
  'Get-WindowsFeature': 'ComputerName:String,Credential:PSCredential,LogPath:String,Name:String[],Vhd:String',
  'Install-WindowsFeature':
    'ComputerName:String,ConfigurationFilePath:String,Credential:PSCredential,IncludeAllSubFeature:SwitchParameter,IncludeManagementTools:SwitchParameter,LogPath:String,Name:Feature[],Restart:SwitchParameter,Source:String[],Vhd:String',
  'Get-VMSwitch':
    'CimSession:CimSession[],ComputerName:String[],Credential:PSCredential[],Id:Guid[],Name:String,ResourcePoolName:String[],SwitchType:VMSwitchType[]',
  'New-VMSwitch':
    'AllowManagementOS:Boolean,CimSession:CimSession[],ComputerName:String[],Credential:PSCredential[],EnableEmbeddedTeaming:Boolean,EnableIov:Boolean,EnablePacketDirect:Boolean,MinimumBandwidthMode:VMSwitchBandwidthMode,Name:String,NetAdapterInterfaceDescription:String[],NetAdapterName:String[],Notes:String,SwitchType:VMSwitchType',
  'Get-VMSwitchExtension':
    'CimSession:CimSession[],ComputerName:String[],Credential:PSCredential[],Name:String[],VMSwitch:VMSwitch[],VMSwitchName:String[]',
  'Get-NetNat': 'AsJob:SwitchParameter,CimSession:CimSession[],Name:String[],ThrottleLimit:Int32',
  'Remove-NetNat':
    'AsJob:SwitchParameter,CimSession:CimSession[],InputObject:CimInstance[],Name:String[],PassThru:SwitchParameter,ThrottleLimit:Int32',
  'Get-NetIPAddress':
    'AddressFamily:AddressFamily[],AddressState:AddressState[],AsJob:SwitchParameter,AssociatedIPInterface:CimInstance,CimSession:CimSession[],IPAddress:String[],IncludeAllCompartments:SwitchParameter,InterfaceAlias:String[],InterfaceIndex:UInt32[],PolicyStore:String,PreferredLifetime:TimeSpan[],PrefixLength:Byte[],PrefixOrigin:PrefixOrigin[],SkipAsSource:Boolean[],SuffixOrigin:SuffixOrigin[],ThrottleLimit:Int32,Type:Type[],ValidLifetime:TimeSpan[]',
  'New-NetIPAddress':
    'AddressFamily:AddressFamily,AsJob:SwitchParameter,CimSession:CimSession[],DefaultGateway:String,IPAddress:String,InterfaceAlias:String,InterfaceIndex:UInt32,PolicyStore:String,PreferredLifetime:TimeSpan,PrefixLength:Byte,SkipAsSource:Boolean,ThrottleLimit:Int32,Type:Type,ValidLifetime:TimeSpan',
  'Get-NetRoute':
    'AddressFamily:AddressFamily[],AsJob:SwitchParameter,AssociatedIPInterface:CimInstance,CimSession:CimSession[],CompartmentId:UInt32[],DestinationPrefix:String[],IncludeAllCompartments:SwitchParameter,InterfaceAlias:String[],InterfaceIndex:UInt32[],NextHop:String[],PolicyStore:String,PreferredLifetime:TimeSpan[],Protocol:Protocol[],Publish:Publish[],RouteMetric:UInt16[],ThrottleLimit:Int32,ValidLifetime:TimeSpan[]',
  'New-NetRoute':
    'AddressFamily:AddressFamily,AsJob:SwitchParameter,CimSession:CimSession[],DestinationPrefix:String,InterfaceAlias:String,InterfaceIndex:UInt32,NextHop:String,PolicyStore:String,PreferredLifetime:TimeSpan,Protocol:Protocol,Publish:Publish,RouteMetric:UInt16,ThrottleLimit:Int32,ValidLifetime:TimeSpan',
  'Remove-NetRoute':
    'AddressFamily:AddressFamily[],AsJob:SwitchParameter,AssociatedIPInterface:CimInstance,CimSession:CimSession[],CompartmentId:UInt32[],DestinationPrefix:String[],IncludeAllCompartments:SwitchParameter,InputObject:CimInstance[],InterfaceAlias:String[],InterfaceIndex:UInt32[],NextHop:String[],PassThru:SwitchParameter,PolicyStore:String,PreferredLifetime:TimeSpan[],Protocol:Protocol[],Publish:Publish[],RouteMetric:UInt16[],ThrottleLimit:Int32,ValidLifetime:TimeSpan[]',
  'Get-NetTCPConnection':
    'AppliedSetting:AppliedSetting[],AsJob:SwitchParameter,CimSession:CimSession[],CreationTime:DateTime[],LocalAddress:String[],LocalPort:UInt16[],OffloadState:OffloadState[],OwningProcess:UInt32[],RemoteAddress:String[],RemotePort:UInt16[],State:State[],ThrottleLimit:Int32',
  'Get-NetAdapter':
    'AsJob:SwitchParameter,CimSession:CimSession[],IncludeHidden:SwitchParameter,InterfaceDescription:String[],InterfaceIndex:UInt32[],Name:String[],Physical:SwitchParameter,ThrottleLimit:Int32',
  'Import-Certificate': 'CertStoreLocation:String,FilePath:String',
  'Confirm-SecureBootUEFI': '',
  'Get-NetIPConfiguration':
    'All:SwitchParameter,AllCompartments:SwitchParameter,CimSession:CimSession,CompartmentId:Int32,Detailed:SwitchParameter,InterfaceAlias:String,InterfaceIndex:Int32',
  'Get-NetFirewallProfile':
    'All:SwitchParameter,AsJob:SwitchParameter,AssociatedNetFirewallRule:CimInstance,AssociatedNetIPsecMainModeRule:CimInstance,AssociatedNetIPsecRule:CimInstance,CimSession:CimSession[],GPOSession:String,Name:String[],PolicyStore:String,ThrottleLimit:Int32',
  'Set-NetFirewallProfile':
    'All:SwitchParameter,AllowInboundRules:GpoBoolean,AllowLocalFirewallRules:GpoBoolean,AllowLocalIPsecRules:GpoBoolean,AllowUnicastResponseToMulticast:GpoBoolean,AllowUserApps:GpoBoolean,AllowUserPorts:GpoBoolean,AsJob:SwitchParameter,CimSession:CimSession[],DefaultInboundAction:Action,DefaultOutboundAction:Action,DisabledInterfaceAliases:String[],EnableStealthModeForIPsec:GpoBoolean,Enabled:GpoBoolean,GPOSession:String,InputObject:CimInstance[],LogAllowed:GpoBoolean,LogBlocked:GpoBoolean,LogFileName:String,LogIgnored:GpoBoolean,LogMaxSizeKilobytes:UInt64,Name:String[],NotifyOnListen:GpoBoolean,PassThru:SwitchParameter,PolicyStore:String,ThrottleLimit:Int32',
  'Get-HnsNetwork': 'Detailed:System.Management.Automation.SwitchParameter,Id:System.String',
  'Remove-HnsNetwork': 'InputObjects:System.Object[]',
  'Get-Service':
    'ComputerName:System.String[],DependentServices:System.Management.Automation.SwitchParameter,DisplayName:System.String[],Exclude:System.String[],Include:System.String[],InputObject:System.ServiceProcess.ServiceController[],Name:System.String[],RequiredServices:System.Management.Automation.SwitchParameter',
  'Start-Service':
    'DisplayName:System.String[],Exclude:System.String[],Include:System.String[],InputObject:System.ServiceProcess.ServiceController[],Name:System.String[],PassThru:System.Management.Automation.SwitchParameter',
  'Stop-Service':
    'DisplayName:System.String[],Exclude:System.String[],Force:System.Management.Automation.SwitchParameter,Include:System.String[],InputObject:System.ServiceProcess.ServiceController[],Name:System.String[],NoWait:System.Management.Automation.SwitchParameter,PassThru:System.Management.Automation.SwitchParameter',
  'Restart-Service':
    'DisplayName:System.String[],Exclude:System.String[],Force:System.Management.Automation.SwitchParameter,Include:System.String[],InputObject:System.ServiceProcess.ServiceController[],Name:System.String[],PassThru:System.Management.Automation.SwitchParameter',
  'Set-Service':
    'ComputerName:System.String[],Description:System.String,DisplayName:System.String,InputObject:System.ServiceProcess.ServiceController,Name:System.String,PassThru:System.Management.Automation.SwitchParameter,StartupType:System.ServiceProcess.ServiceStartMode,Status:System.String',
  'New-Service':
    'BinaryPathName:System.String,Credential:System.Management.Automation.PSCredential,DependsOn:System.String[],Description:System.String,DisplayName:System.String,Name:System.String,StartupType:System.ServiceProcess.ServiceStartMode',
  'Start-Process':
    'ArgumentList:System.String[],Credential:System.Management.Automation.PSCredential,FilePath:System.String,LoadUserProfile:System.Management.Automation.SwitchParameter,NoNewWindow:System.Management.Automation.SwitchParameter,PassThru:System.Management.Automation.SwitchParameter,RedirectStandardError:System.String,RedirectStandardInput:System.String,RedirectStandardOutput:System.String,UseNewEnvironment:System.Management.Automation.SwitchParameter,Verb:System.String,Wait:System.Management.Automation.SwitchParameter,WindowStyle:System.Diagnostics.ProcessWindowStyle,WorkingDirectory:System.String',
  'Test-Path':
    'Credential:System.Management.Automation.PSCredential,Exclude:System.String[],Filter:System.String,Include:System.String[],IsValid:System.Management.Automation.SwitchParameter,LiteralPath:System.String[],NewerThan:System.Nullable`1[[System.DateTime]],OlderThan:System.Nullable`1[[System.DateTime]],Path:System.String[],PathType:Microsoft.PowerShell.Commands.TestPathType,UseTransaction:System.Management.Automation.SwitchParameter',
  'Get-Content':
    'Credential:System.Management.Automation.PSCredential,Delimiter:System.String,Encoding:Microsoft.PowerShell.Commands.FileSystemCmdletProviderEncoding,Exclude:System.String[],Filter:System.String,Force:System.Management.Automation.SwitchParameter,Include:System.String[],LiteralPath:System.String[],Path:System.String[],Raw:System.Management.Automation.SwitchParameter,ReadCount:System.Int64,Stream:System.String,Tail:System.Int32,TotalCount:System.Int64,UseTransaction:System.Management.Automation.SwitchParameter,Wait:System.Management.Automation.SwitchParameter',
  'Set-Content':
    'Credential:System.Management.Automation.PSCredential,Encoding:Microsoft.PowerShell.Commands.FileSystemCmdletProviderEncoding,Exclude:System.String[],Filter:System.String,Force:System.Management.Automation.SwitchParameter,Include:System.String[],LiteralPath:System.String[],NoNewline:System.Management.Automation.SwitchParameter,PassThru:System.Management.Automation.SwitchParameter,Path:System.String[],Stream:System.String,UseTransaction:System.Management.Automation.SwitchParameter,Value:System.Object[]',
  'New-Item':
    'ApplicationName:System.String,Authentication:Microsoft.WSMan.Management.AuthenticationMechanism,CertificateThumbprint:System.String,ConnectionURI:System.Uri,Credential:System.Management.Automation.PSCredential,Force:System.Management.Automation.SwitchParameter,ItemType:System.String,Name:System.String,OptionSet:System.Collections.Hashtable,Options:System.Management.Automation.ScopedItemOptions,Path:System.String[],Port:System.Int32,SessionOption:Microsoft.WSMan.Management.SessionOption,UseSSL:System.Management.Automation.SwitchParameter,UseTransaction:System.Management.Automation.SwitchParameter,Value:System.Object',
  'Remove-Item':
    'Credential:System.Management.Automation.PSCredential,DeleteKey:System.Management.Automation.SwitchParameter,Exclude:System.String[],Filter:System.String,Force:System.Management.Automation.SwitchParameter,Include:System.String[],LiteralPath:System.String[],Path:System.String[],Recurse:System.Management.Automation.SwitchParameter,Stream:System.String[],UseTransaction:System.Management.Automation.SwitchParameter',
  'Get-ItemProperty':
    'Credential:System.Management.Automation.PSCredential,Exclude:System.String[],Filter:System.String,Include:System.String[],LiteralPath:System.String[],Name:System.String[],Path:System.String[],UseTransaction:System.Management.Automation.SwitchParameter',
  'Set-ItemProperty':
    'Credential:System.Management.Automation.PSCredential,Exclude:System.String[],Filter:System.String,Force:System.Management.Automation.SwitchParameter,Include:System.String[],InputObject:System.Management.Automation.PSObject,LiteralPath:System.String[],Name:System.String,PassThru:System.Management.Automation.SwitchParameter,Path:System.String[],Type:Microsoft.Win32.RegistryValueKind,UseTransaction:SwitchParameter,Value:System.Object',
  'Restart-Computer':
    'AsJob:System.Management.Automation.SwitchParameter,ComputerName:System.String[],Credential:System.Management.Automation.PSCredential,DcomAuthentication:System.Management.AuthenticationLevel,Delay:System.Int16,For:Microsoft.PowerShell.Commands.WaitForServiceTypes,Force:System.Management.Automation.SwitchParameter,Impersonation:System.Management.ImpersonationLevel,Protocol:System.String,ThrottleLimit:System.Int32,Timeout:System.Int32,Wait:System.Management.Automation.SwitchParameter,WsmanAuthentication:System.String',
  'Get-FileHash': 'Algorithm:System.String,InputStream:System.IO.Stream,LiteralPath:System.String[],Path:System.String[]',
  'ConvertTo-Json': 'Compress:System.Management.Automation.SwitchParameter,Depth:System.Int32,InputObject:System.Object',
  'ConvertFrom-Json': 'InputObject:System.String',
  'Select-Object':
    'ExcludeProperty:System.String[],ExpandProperty:System.String,First:System.Int32,Index:System.Int32[],InputObject:System.Management.Automation.PSObject,Last:System.Int32,Property:System.Object[],Skip:System.Int32,SkipLast:System.Int32,Unique:System.Management.Automation.SwitchParameter,Wait:System.Management.Automation.SwitchParameter',
  'Where-Object':
    'CContains:System.Management.Automation.SwitchParameter,CEQ:System.Management.Automation.SwitchParameter,CGE:System.Management.Automation.SwitchParameter,CGT:System.Management.Automation.SwitchParameter,CIn:System.Management.Automation.SwitchParameter,CLE:System.Management.Automation.SwitchParameter,CLT:System.Management.Automation.SwitchParameter,CLike:System.Management.Automation.SwitchParameter,CMatch:System.Management.Automation.SwitchParameter,CNE:System.Management.Automation.SwitchParameter,CNotContains:System.Management.Automation.SwitchParameter,CNotIn:System.Management.Automation.SwitchParameter,CNotLike:System.Management.Automation.SwitchParameter,CNotMatch:System.Management.Automation.SwitchParameter,Contains:System.Management.Automation.SwitchParameter,EQ:System.Management.Automation.SwitchParameter,FilterScript:System.Management.Automation.ScriptBlock,GE:System.Management.Automation.SwitchParameter,GT:System.Management.Automation.SwitchParameter,In:System.Management.Automation.SwitchParameter,InputObject:System.Management.Automation.PSObject,Is:System.Management.Automation.SwitchParameter,IsNot:System.Management.Automation.SwitchParameter,LE:System.Management.Automation.SwitchParameter,LT:System.Management.Automation.SwitchParameter,Like:System.Management.Automation.SwitchParameter,Match:System.Management.Automation.SwitchParameter,NE:System.Management.Automation.SwitchParameter,NotContains:System.Management.Automation.SwitchParameter,NotIn:System.Management.Automation.SwitchParameter,NotLike:System.Management.Automation.SwitchParameter,NotMatch:System.Management.Automation.SwitchParameter,Property:System.String,Value:System.Management.Automation.PSObject',
  'ForEach-Object':
    'ArgumentList:System.Object[],Begin:System.Management.Automation.ScriptBlock,End:System.Management.Automation.ScriptBlock,InputObject:System.Management.Automation.PSObject,MemberName:System.String,Process:System.Management.Automation.ScriptBlock[],RemainingScripts:System.Management.Automation.ScriptBlock[]',
  'Invoke-WebRequest':
    'Body:System.Object,Certificate:System.Security.Cryptography.X509Certificates.X509Certificate,CertificateThumbprint:System.String,ContentType:System.String,Credential:System.Management.Automation.PSCredential,DisableKeepAlive:System.Management.Automation.SwitchParameter,Headers:System.Collections.IDictionary,InFile:System.String,MaximumRedirection:System.Int32,Method:Microsoft.PowerShell.Commands.WebRequestMethod,OutFile:System.String,PassThru:System.Management.Automation.SwitchParameter,Proxy:System.Uri,ProxyCredential:System.Management.Automation.PSCredential,ProxyUseDefaultCredentials:System.Management.Automation.SwitchParameter,SessionVariable:System.String,TimeoutSec:System.Int32,TransferEncoding:System.String,Uri:System.Uri,UseBasicParsing:System.Management.Automation.SwitchParameter,UseDefaultCredentials:System.Management.Automation.SwitchParameter,UserAgent:System.String,WebSession:Microsoft.PowerShell.Commands.WebRequestSession',
  'Invoke-Expression': 'Command:System.String',
  'Set-ExecutionPolicy':
    'ExecutionPolicy:Microsoft.PowerShell.ExecutionPolicy,Force:System.Management.Automation.SwitchParameter,Scope:Microsoft.PowerShell.ExecutionPolicyScope',
  'Invoke-RestMethod':
    'Body:System.Object,Certificate:System.Security.Cryptography.X509Certificates.X509Certificate,CertificateThumbprint:System.String,ContentType:System.String,Credential:System.Management.Automation.PSCredential,DisableKeepAlive:System.Management.Automation.SwitchParameter,Headers:System.Collections.IDictionary,InFile:System.String,MaximumRedirection:System.Int32,Method:Microsoft.PowerShell.Commands.WebRequestMethod,OutFile:System.String,PassThru:System.Management.Automation.SwitchParameter,Proxy:System.Uri,ProxyCredential:System.Management.Automation.PSCredential,ProxyUseDefaultCredentials:System.Management.Automation.SwitchParameter,SessionVariable:System.String,TimeoutSec:System.Int32,TransferEncoding:System.String,Uri:System.Uri,UseBasicParsing:System.Management.Automation.SwitchParameter,UseDefaultCredentials:System.Management.Automation.SwitchParameter,UserAgent:System.String,WebSession:Microsoft.PowerShell.Commands.WebRequestSession',
  'Write-Output': 'InputObject:System.Management.Automation.PSObject[],NoEnumerate:System.Management.Automation.SwitchParameter',
  'Write-Host':
    'BackgroundColor:System.ConsoleColor,ForegroundColor:System.ConsoleColor,NoNewline:System.Management.Automation.SwitchParameter,Object:System.Object,Separator:System.Object',
  'Sort-Object':
    'CaseSensitive:System.Management.Automation.SwitchParameter,Culture:System.String,Descending:System.Management.Automation.SwitchParameter,InputObject:System.Management.Automation.PSObject,Property:System.Object[],Unique:System.Management.Automation.SwitchParameter',
  'Get-PfxCertificate': 'FilePath:System.String[],LiteralPath:System.String[]',
  'Get-CimInstance':
    'CimSession:Microsoft.Management.Infrastructure.CimSession[],ClassName:System.String,ComputerName:System.String[],Filter:System.String,InputObject:Microsoft.Management.Infrastructure.CimInstance,KeyOnly:System.Management.Automation.SwitchParameter,Namespace:System.String,OperationTimeoutSec:System.UInt32,Property:System.String[],Query:System.String,QueryDialect:System.String,ResourceUri:System.Uri,Shallow:System.Management.Automation.SwitchParameter',
  'Import-Module':
    'Alias:System.String[],ArgumentList:System.Object[],AsCustomObject:System.Management.Automation.SwitchParameter,Assembly:System.Reflection.Assembly[],CimNamespace:System.String,CimResourceUri:System.Uri,CimSession:Microsoft.Management.Infrastructure.CimSession,Cmdlet:System.String[],DisableNameChecking:System.Management.Automation.SwitchParameter,Force:System.Management.Automation.SwitchParameter,FullyQualifiedName:Microsoft.PowerShell.Commands.ModuleSpecification[],Function:System.String[],Global:System.Management.Automation.SwitchParameter,MaximumVersion:System.String,MinimumVersion:System.Version,ModuleInfo:System.Management.Automation.PSModuleInfo[],Name:System.String[],NoClobber:System.Management.Automation.SwitchParameter,PSSession:System.Management.Automation.Runspaces.PSSession,PassThru:System.Management.Automation.SwitchParameter,Prefix:System.String,RequiredVersion:System.Version,Scope:System.String,Variable:System.String[]',
  'Get-Item':
    'CodeSigningCert:System.Management.Automation.SwitchParameter,Credential:System.Management.Automation.PSCredential,DnsName:Microsoft.PowerShell.Commands.DnsNameRepresentation,DocumentEncryptionCert:System.Management.Automation.SwitchParameter,Eku:System.String,Exclude:System.String[],ExpiringInDays:System.Int32,Filter:System.String,Force:System.Management.Automation.SwitchParameter,Include:System.String[],LiteralPath:System.String[],Path:System.String[],SSLServerAuthentication:System.Management.Automation.SwitchParameter,Stream:System.String[],UseTransaction:System.Management.Automation.SwitchParameter',
  'Copy-Item':
    'Container:System.Management.Automation.SwitchParameter,Credential:System.Management.Automation.PSCredential,Destination:System.String,Exclude:System.String[],Filter:System.String,Force:System.Management.Automation.SwitchParameter,FromSession:System.Management.Automation.Runspaces.PSSession,Include:System.String[],LiteralPath:System.String[],PassThru:System.Management.Automation.SwitchParameter,Path:System.String[],Recurse:System.Management.Automation.SwitchParameter,ToSession:System.Management.Automation.Runspaces.PSSession,UseTransaction:System.Management.Automation.SwitchParameter',
  'Move-Item':
    'Credential:System.Management.Automation.PSCredential,Destination:System.String,Exclude:System.String[],Filter:System.String,Force:System.Management.Automation.SwitchParameter,Include:System.String[],LiteralPath:System.String[],PassThru:System.Management.Automation.SwitchParameter,Path:System.String[],UseTransaction:System.Management.Automation.SwitchParameter',
  'Get-ChildItem':
    'Attributes:System.Management.Automation.FlagsExpression`1[System.IO.FileAttributes],Depth:System.UInt32,Directory:System.Management.Automation.SwitchParameter,Exclude:System.String[],File:System.Management.Automation.SwitchParameter,Filter:System.String,Force:System.Management.Automation.SwitchParameter,Hidden:System.Management.Automation.SwitchParameter,Include:System.String[],LiteralPath:System.String[],Name:System.Management.Automation.SwitchParameter,Path:System.String[],ReadOnly:System.Management.Automation.SwitchParameter,Recurse:System.Management.Automation.SwitchParameter,System:System.Management.Automation.SwitchParameter,UseTransaction:System.Management.Automation.SwitchParameter',
  'Join-Path':
    'ChildPath:System.String,Credential:System.Management.Automation.PSCredential,Path:System.String[],Resolve:System.Management.Automation.SwitchParameter,UseTransaction:System.Management.Automation.SwitchParameter',
  'Split-Path':
    'Credential:System.Management.Automation.PSCredential,IsAbsolute:System.Management.Automation.SwitchParameter,Leaf:System.Management.Automation.SwitchParameter,LiteralPath:System.String[],NoQualifier:System.Management.Automation.SwitchParameter,Parent:System.Management.Automation.SwitchParameter,Path:System.String[],Qualifier:System.Management.Automation.SwitchParameter,Resolve:System.Management.Automation.SwitchParameter,UseTransaction:System.Management.Automation.SwitchParameter',
  'Out-Null': 'InputObject:System.Management.Automation.PSObject',
};
