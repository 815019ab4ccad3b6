// The .NET exception types a simulated error can carry, with their base types, so `catch [T]` matches an
// error of T or of a type derived from T, as about_Try_Catch_Finally says. Hierarchy from the .NET and
// System.Management.Automation API reference (learn.microsoft.com/dotnet/api).

const SMA = 'System.Management.Automation';

/** Full name -> base type's full name. */
const BASES: Record<string, string | undefined> = {
  'System.Exception': undefined,
  'System.SystemException': 'System.Exception',
  'System.ArgumentException': 'System.SystemException',
  'System.InvalidCastException': 'System.SystemException',
  'System.InvalidOperationException': 'System.SystemException',
  'System.FormatException': 'System.SystemException',
  'System.OverflowException': 'System.ArithmeticException',
  'System.ArithmeticException': 'System.SystemException',
  'System.DivideByZeroException': 'System.ArithmeticException',
  'System.IO.IOException': 'System.SystemException',
  'System.IO.FileNotFoundException': 'System.IO.IOException',
  'System.IO.DirectoryNotFoundException': 'System.IO.IOException',
  'System.Net.WebException': 'System.InvalidOperationException',
  'System.Runtime.InteropServices.ExternalException': 'System.SystemException',
  'System.ComponentModel.Win32Exception': 'System.Runtime.InteropServices.ExternalException',
  'Microsoft.PowerShell.Commands.ServiceCommandException': 'System.SystemException',
  'Microsoft.Management.Infrastructure.CimException': 'System.SystemException',
  [`${SMA}.RuntimeException`]: 'System.SystemException',
  [`${SMA}.CommandNotFoundException`]: `${SMA}.RuntimeException`,
  [`${SMA}.ParameterBindingException`]: `${SMA}.RuntimeException`,
  [`${SMA}.ParameterBindingArgumentTransformationException`]: `${SMA}.ParameterBindingException`,
  [`${SMA}.ActionPreferenceStopException`]: `${SMA}.RuntimeException`,
  [`${SMA}.MethodException`]: `${SMA}.RuntimeException`,
  [`${SMA}.MethodInvocationException`]: `${SMA}.MethodException`,
  [`${SMA}.SessionStateException`]: `${SMA}.RuntimeException`,
  [`${SMA}.ItemNotFoundException`]: `${SMA}.SessionStateException`,
  [`${SMA}.PSArgumentException`]: 'System.ArgumentException',
  [`${SMA}.PSInvalidOperationException`]: 'System.InvalidOperationException',
  [`${SMA}.PSInvalidCastException`]: 'System.InvalidCastException',
  [`${SMA}.RemoteException`]: `${SMA}.RuntimeException`,
  [`${SMA}.ParseException`]: `${SMA}.RuntimeException`,
  [`${SMA}.MetadataException`]: `${SMA}.RuntimeException`,
  [`${SMA}.ArgumentTransformationMetadataException`]: `${SMA}.MetadataException`,
};

const BY_SHORT_NAME = new Map(Object.keys(BASES).map((full) => [full.slice(full.lastIndexOf('.') + 1).toLowerCase(), full]));

/** A type as a script writes it (`[Exception]`, `[System.IO.IOException]`) -> its full name, if the simulator knows it. */
export function resolveExceptionType(written: string): string | undefined {
  const name = written.replace(/^\[|\]$/g, '').trim();
  const lower = name.toLowerCase();
  return Object.keys(BASES).find((t) => t.toLowerCase() === lower || t.toLowerCase() === `system.${lower}`);
}

/** The exception type behind an error id ('System.IO.IOException,Cmd', 'CommandNotFoundException') or a category line. */
export function exceptionTypeOf(errorId: string, category?: string): string | undefined {
  const first = errorId.split(',')[0] ?? '';
  if (first in BASES) return first;
  const short = BY_SHORT_NAME.get(first.toLowerCase());
  if (short) return short;
  const fromCategory = category ? /, (\w+Exception)$/.exec(category)?.[1] : undefined;
  return fromCategory ? BY_SHORT_NAME.get(fromCategory.toLowerCase()) : undefined;
}

/** Whether an error of type `actual` is caught by `catch [wanted]`. */
export function isExceptionOf(actual: string, wanted: string): boolean {
  for (let t: string | undefined = actual; t; t = BASES[t]) if (t === wanted) return true;
  return false;
}
